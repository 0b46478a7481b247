// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AuthServer

/// Group commit on SQLite's writer (``GroupCommit``): writes that queue while one runs share its
/// transaction, each undone alone when it fails, and none returns before its commit.
@Suite(.timeLimit(.minutes(2))) struct GroupCommitTests {
    /// A file database with a table `t(x INTEGER UNIQUE)`, and a gate that holds the writer.
    final class Fixture: Sendable {
        let directory: TemporaryDirectory
        let engine: SQLiteEngine
        let gate = AsyncLock()

        init() async throws {
            directory = try TemporaryDirectory("group-commit")
            engine = try SQLiteEngine(path: directory.path + "/db.sqlite")
            try await engine.write("create") { c in try c.execute("CREATE TABLE t(x INTEGER UNIQUE)") }
        }

        static let insert = SQL("INSERT INTO t(x) VALUES (?)")

        func insert(_ values: [Int64]) async throws {
            try await engine.write("insert") { c in
                for value in values { try await c.run(Self.insert, [.integer(value)]) }
            }
        }

        /// What a read connection sees (committed rows only).
        func rows() async throws -> [Int64] {
            try await engine.read("rows") { c in try await c.all(SQL("SELECT x FROM t ORDER BY x"), []) { try $0.int64("x") } }
        }

        /// Starts a write of `first` that holds the writer until `release`, then the writes of
        /// `queued`, one task each, and returns once all of them wait for the writer.
        func queue(first: Int64, _ queued: [[Int64]]) async throws -> (release: @Sendable () -> Void, results: [Task<Void, any Error>]) {
            await gate.lock()
            let holding = Atomic<Bool>(false)
            let holder = Task {
                try await engine.write("hold") { c in
                    try await c.run(Self.insert, [.integer(first)])
                    holding.store(true, ordering: .releasing)
                    await gate.lock()  // held by the test until release
                    gate.unlock()
                }
            }
            // The holder has the writer before any write queues (a busy machine may run the
            // tasks in another order than they were made).
            while !holding.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
            var tasks = [holder]
            for (index, values) in queued.enumerated() {
                tasks.append(Task { try await insert(values) })
                // Each in its turn, so that the queue's order is the list's.
                while await waiting() < index + 1 { try await Task.sleep(for: .milliseconds(5)) }
            }
            let held = gate
            return ({ held.unlock() }, tasks)
        }

        /// How many writes wait for the writer's turn.
        func waiting() async -> Int { engine.writersWaiting }
    }

    @Test func writesThatQueueShareOneCommit() async throws {
        let f = try await Fixture()
        let before = f.engine.committed
        let (release, tasks) = try await f.queue(first: 1, [[2], [3], [4, 5]])
        #expect(try await f.rows() == [], "nothing is visible before the batch commits")
        release()
        for task in tasks { try await task.value }
        #expect(try await f.rows() == [1, 2, 3, 4, 5])
        let after = f.engine.committed
        #expect(after.commits - before.commits == 1, "\(before) -> \(after)")
        #expect(after.writes - before.writes == 4)
    }

    /// The third write of the batch inserts a row and then breaks the table's constraint: it
    /// fails alone, its first row undone with it; the others commit.
    @Test func aFailingWriteFailsOnlyItself() async throws {
        let f = try await Fixture()
        let (release, tasks) = try await f.queue(first: 1, [[2], [100, 2], [3]])
        release()
        try await tasks[0].value
        try await tasks[1].value
        await #expect(throws: StoreError.conflict("insert")) { try await tasks[2].value }
        try await tasks[3].value
        #expect(try await f.rows() == [1, 2, 3])
    }

    /// A write alone commits at once: nothing waits for a batch to fill.
    @Test func aLoneWriteCommitsAlone() async throws {
        let f = try await Fixture()
        let before = f.engine.committed
        try await f.insert([7])
        try await f.insert([8])
        #expect(f.engine.committed.commits - before.commits == 2)
        #expect(try await f.rows() == [7, 8])
    }

    /// A batch holds at most `batchLimit` writes.
    @Test func aBatchIsBounded() async throws {
        let f = try await Fixture()
        let before = f.engine.committed
        let limit = SQLiteEngine.batchLimit
        let (release, tasks) = try await f.queue(first: 0, (1...Int64(limit)).map { [$0] })
        release()
        for task in tasks { try await task.value }
        let after = f.engine.committed
        #expect(after.commits - before.commits == 2, "\(limit + 1) writes, \(limit) at most a commit")
        #expect(after.writes - before.writes == limit + 1)
    }
}
