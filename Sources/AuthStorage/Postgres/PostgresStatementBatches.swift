// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Group commit on PostgreSQL for writes of one statement whose result nobody reads (the audit
/// log's rows): statements that arrive while a batch runs go together in the next transaction,
/// so the logins of one moment share a commit, and its flush to disk, for their events.
///
/// - One batch runs at a time; its caller-independent task takes every statement queued and
///   runs them: one alone commits alone (one round trip), several in one transaction.
/// - A transaction that PostgreSQL refused (a statement's error: it rolled back) is run again
///   one statement at a time, each committed alone, so a failing statement fails its own caller
///   only. A transaction that failed otherwise (the connection lost, perhaps after its commit
///   reached the database) fails every caller of the batch, as SQLite's failed commit does:
///   running it again could store its rows twice.
/// - No caller returns before the commit that holds its statement (or its failure): nothing is
///   acknowledged before it is durable.
///
/// Other writes (a login's user and session) run in transactions of their own on the pool's
/// connections, in parallel: PostgreSQL's own commits share flushes when they coincide.
package final class PostgresStatementBatches: Sendable {
    /// A queued statement and its caller.
    package struct Statement: Sendable {
        package var operation: String
        package var sql: SQL
        package var arguments: [SQLValue]
        package var done: CheckedContinuation<(any Error)?, Never>

        /// The memberwise initialiser, for the whole package.
        package init(operation: String, sql: SQL, arguments: [SQLValue], done: CheckedContinuation<(any Error)?, Never>) {
            self.operation = operation
            self.sql = sql
            self.arguments = arguments
            self.done = done
        }
    }

    /// Runs statements: `alone` commits one by itself, `together` several in one transaction;
    /// `refused` tells PostgreSQL's refusal of a statement (the transaction rolled back) from
    /// any other failure.
    package struct Runner: Sendable {
        package var alone: @Sendable (Statement) async throws -> Void
        package var together: @Sendable ([Statement]) async throws -> Void
        package var refused: @Sendable (any Error) -> Bool

        /// The memberwise initialiser, for the whole package.
        package init(
            alone: @escaping @Sendable (Statement) async throws -> Void, together: @escaping @Sendable ([Statement]) async throws -> Void,
            refused: @escaping @Sendable (any Error) -> Bool
        ) {
            self.alone = alone
            self.together = together
            self.refused = refused
        }
    }

    private struct State {
        var waiting: [Statement] = []
        /// True while a task runs batches (callers that come meanwhile only queue).
        var running = false
    }

    private let state = Mutex(State())
    private let runner: Runner

    package init(runner: Runner) {
        self.runner = runner
    }

    /// Stores `sql` with `arguments`, alone or in a transaction with others.
    /// - Throws: the error of its own statement (or of the connection it ran on).
    package func run(_ operation: String, _ sql: SQL, _ arguments: [SQLValue]) async throws {
        let failure: (any Error)? = await withCheckedContinuation { done in
            let lead = state.withLock { s in
                s.waiting.append(Statement(operation: operation, sql: sql, arguments: arguments, done: done))
                if s.running { return false }
                s.running = true
                return true
            }
            // A task of its own runs the batches, so that this caller resumes with the first.
            if lead { Task { await self.drain() } }
        }
        if let failure { throw failure }
    }

    private func drain() async {
        while true {
            let batch: [Statement] = state.withLock { s in
                defer { s.waiting = [] }
                if s.waiting.isEmpty { s.running = false }
                return s.waiting
            }
            if batch.isEmpty { return }
            if batch.count > 1 {
                do {
                    try await runner.together(batch)
                    for statement in batch { statement.done.resume(returning: nil) }
                    continue
                } catch  where !runner.refused(error) {
                    for statement in batch { statement.done.resume(returning: error) }
                    continue
                } catch {
                    // Refused and rolled back: each alone, below.
                }
            }
            for statement in batch {
                do {
                    try await runner.alone(statement)
                    statement.done.resume(returning: nil)
                } catch {
                    statement.done.resume(returning: error)
                }
            }
        }
    }
}
