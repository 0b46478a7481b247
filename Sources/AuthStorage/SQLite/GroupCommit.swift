// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Group commit on SQLite's one writer: writes that arrive while another holds the writer join
/// its transaction, each in a savepoint of its own, and the last of them commits for all.
///
/// - A write runs when the writer's turn (an ``AsyncLock``: arrival order) is its. With no
///   transaction open it begins one (`BEGIN IMMEDIATE`). Its statements run inside a
///   `SAVEPOINT`, released when its body returns and rolled back to when the body throws: a
///   failing write undoes its own statements and nothing else.
/// - Then, when other writes wait for the turn and the batch holds fewer than ``limit`` writes,
///   it hands the turn on with the transaction open and waits for the batch's commit. Otherwise
///   it commits for the batch and wakes the writes waiting for that commit.
/// - No write returns before the transaction that holds it has committed. A commit that fails
///   fails every write of its batch, none of which is then in the database.
///
/// Nothing waits for a batch to fill: a write that finds no other waiting commits at once, so a
/// lone write costs what it cost before, and writes batch exactly when they queue anyway.
package final class GroupCommit: Sendable {
    /// The most writes one transaction holds (1: every write commits alone).
    package let limit: Int
    /// The writer's turn.
    package let turn: AsyncLock
    /// The open transaction's writes that wait for its commit (nil: no transaction open). Only the
    /// turn's holder changes it; a mutex makes that visible to the next holder.
    private let open = Mutex<[CheckedContinuation<Result<Void, any Error>, Never>]?>(nil)
    private let tally = Mutex(Tally())

    /// Transactions committed, and the writes they held.
    package struct Tally: Sendable, Equatable {
        package var commits = 0
        package var writes = 0

        /// The memberwise initialiser, for the whole package.
        package init(commits: Int = 0, writes: Int = 0) {
            self.commits = commits
            self.writes = writes
        }
    }

    package init(limit: Int, turn: AsyncLock = AsyncLock()) {
        precondition(limit >= 1)
        self.limit = limit
        self.turn = turn
    }

    /// What was committed so far.
    package var committed: Tally { tally.withLock { $0 } }

    /// Runs `body` on `writer` in the current transaction (beginning one if none is open) and
    /// returns once that transaction has committed; throws `body`'s error (with its statements
    /// undone), or the commit's.
    package func write<T>(on writer: SQLiteConnection, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        await turn.lock()
        let waiting = open.withLock { $0?.count }
        if waiting == nil {
            do {
                try writer.execute("BEGIN IMMEDIATE")
            } catch {
                turn.unlock()
                throw error
            }
            open.withLock { $0 = [] }
        }
        let outcome: Result<T, any Error>
        do {
            try writer.execute("SAVEPOINT write")
            do {
                let value = try await body(writer)
                try writer.execute("RELEASE write")
                outcome = .success(value)
            } catch {
                try writer.execute("ROLLBACK TO write")
                try writer.execute("RELEASE write")
                outcome = .failure(error)
            }
        } catch {
            // The savepoint could not be made or undone: nothing in the transaction can be trusted.
            try? writer.execute("ROLLBACK")
            finish(.failure(error), writes: 0)
            turn.unlock()
            throw error
        }
        guard case .success(let value) = outcome else {
            // Nothing of this write is in the transaction: the batch goes on without it.
            if !turn.hasWaiters { commit(writer, writes: 0) }
            turn.unlock()
            return try outcome.get()
        }
        if turn.hasWaiters && (waiting ?? 0) + 1 < limit {
            let result = await withCheckedContinuation { (commit: CheckedContinuation<Result<Void, any Error>, Never>) in
                open.withLock { $0?.append(commit) }
                turn.unlock()
            }
            try result.get()
            return value
        }
        let result = commit(writer, writes: 1)
        turn.unlock()
        try result.get()
        return value
    }

    /// Commits the open transaction for its waiting writes and this one (`writes`), or rolls it
    /// back when the commit fails; wakes the waiting writes with the outcome.
    @discardableResult
    private func commit(_ writer: SQLiteConnection, writes: Int) -> Result<Void, any Error> {
        let result: Result<Void, any Error>
        do {
            try writer.execute("COMMIT")
            result = .success(())
        } catch {
            try? writer.execute("ROLLBACK")
            result = .failure(error)
        }
        finish(result, writes: writes)
        return result
    }

    /// Ends the open batch: counts it and wakes its waiting writes with `result`.
    private func finish(_ result: Result<Void, any Error>, writes: Int) {
        let waiters = open.withLock { open in
            defer { open = nil }
            return open ?? []
        }
        if case .success = result {
            tally.withLock {
                $0.commits += 1
                $0.writes += waiters.count + writes
            }
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}
