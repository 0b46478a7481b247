// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import Synchronization

/// A SQLite database's write lock held from another connection (`BEGIN IMMEDIATE`) until
/// ``release()``: a server writing to that database waits for it (its busy timeout, 5 s), and
/// the writes that come meanwhile queue behind that one. Released, they share the next commits
/// (group commit), whatever the machine's load: how a test makes a burst's writes batch.
public final class SQLiteWriteHold: Sendable {
    private final class Gate: Sendable {
        let locked = Atomic<Bool>(false)
        let released = Atomic<Bool>(false)
        let ended = Atomic<Bool>(false)
    }

    private let gate = Gate()
    private let holding: Task<Void, any Error>

    /// Takes the write lock of the database at `path`; returns once it is held.
    /// - Throws: GRDB's error when the database cannot be opened or locked.
    public init(path: String) async throws {
        // Waits for the lock (a server that just started may be writing), rather than
        // failing at once as GRDB's default does.
        var configuration = Configuration()
        configuration.busyMode = .timeout(60)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let gate = gate
        holding = Task {
            defer { gate.ended.store(true, ordering: .releasing) }
            // GRDB runs this on its own thread, so the wait blocks none of the concurrency pool's.
            try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                gate.locked.store(true, ordering: .releasing)
                while !gate.released.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.002) }
                try db.execute(sql: "COMMIT")
            }
        }
        while !gate.locked.load(ordering: .acquiring) && !gate.ended.load(ordering: .acquiring) {
            try await Task.sleep(for: .milliseconds(2))
        }
        if !gate.locked.load(ordering: .acquiring) { try await holding.value }
    }

    /// Lets the lock go; throws what holding it threw.
    public func release() async throws {
        gate.released.store(true, ordering: .releasing)
        try await holding.value
    }
}
