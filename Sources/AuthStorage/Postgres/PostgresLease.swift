// SPDX-License-Identifier: Apache-2.0
import PostgresNIO
import Synchronization

/// A connection of the pool within a deadline, and an operation on it that ends when the
/// connection does: what every operation of ``PostgresEngine`` runs on.
///
/// - **The lease has a deadline.** postgres-nio's pool has none of its own. While PostgreSQL
///   is away a request waited for a minute (the pool's circuit breaker), and one queued as the
///   database went away could wait for ever after it came back (the server then never finished
///   a graceful shutdown either). Past the deadline the lease is cancelled, which takes it out
///   of the pool's queue, and the operation fails as unavailable: the client gets 503 and
///   `Retry-After`. The deadline is on getting a connection only; the operation's statements
///   then take as long as they take.
/// - **No statement is sent on a closed connection.** postgres-nio hands a statement to its
///   channel and waits for an answer that only its channel handler gives; once a closed
///   channel has removed its handlers (NIO does that a moment after the close), the statement
///   is dropped and the wait never ends. postgres-nio's own `withTransaction` sends `ROLLBACK`
///   after a failed statement, so every transaction in flight when PostgreSQL died waited for
///   ever: its request never answered, and the pool counted its connection as leased. Here an
///   operation runs on the connection's event loop (``EventLoopExecutor``), where checking that
///   the channel is open and sending the statement happen with nothing in between, and every
///   statement, `BEGIN`, `COMMIT` and `ROLLBACK` included, checks first (``ensureOpen(_:)``):
///   on a closed connection it fails at once as unavailable, and a transaction is not rolled
///   back on it (PostgreSQL rolls back what a lost connection left open).
package enum PostgresLease {
    /// How long an operation may wait for a connection.
    package static let deadline: Duration = .seconds(5)

    /// Runs `body` on a connection of `client` (in a transaction when `transaction`), or throws
    /// `StoreError.unavailable` when no connection came within `deadline` (``deadline`` but for
    /// the migrations at start-up, which wait as long as the start-up may take).
    package static func run<T: Sendable>(
        _ client: PostgresClient, transaction: Bool, logger: Logger, operation: String,
        deadline: Duration = PostgresLease.deadline,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withoutActuallyEscaping(body) { body in
            let start = ContinuousClock.now
            let work = Work(body)
            let race = Race()
            let late = StoreError.unavailable("\(operation): no database connection within \(deadline.components.seconds) s")
            return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
                group.addTask {
                    // The body runs only if the connection came first: an operation the deadline
                    // won never starts (nothing of it is sent), so a 503 had no effect.
                    let value = try await client.withConnection { connection in
                        guard race.settle(.leased) else { throw late }
                        return try await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
                            transaction
                                ? try await inTransaction(connection, logger) { try await work.body($0) }
                                : try await work.body(connection)
                        }
                    }
                    return .value(value)
                }
                group.addTask {
                    // One shared clock, not a sleep per operation (``DeadlineWatch`` says why).
                    await DeadlineWatch.shared.wait(until: start + deadline)
                    guard race.settle(.expired) else { return .leased }
                    throw late
                }
                while let outcome = try await group.next() {
                    if case .value(let value) = outcome {
                        group.cancelAll()
                        return value
                    }
                }
                throw StoreError.unavailable(operation)
            }
        }
    }

    /// Throws ``ClosedConnection`` when `connection` is closed. Called on the connection's
    /// event loop just before a statement is sent, it guarantees the statement reaches the
    /// connection's handler, which answers it or fails it.
    package static func ensureOpen(_ connection: PostgresConnection) throws(ClosedConnection) {
        if connection.isClosed { throw ClosedConnection() }
    }

    /// The connection closed before a statement could be sent (the engine's callers see the
    /// database as unavailable).
    package struct ClosedConnection: Error {}

    /// `body` in a transaction on `connection`: committed when it returns, rolled back when it
    /// throws (unless the connection has closed, which rolls it back). The body's error is
    /// thrown as it is.
    private static func inTransaction<T>(
        _ connection: PostgresConnection, _ logger: Logger, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try ensureOpen(connection)
        try await connection.query("BEGIN", logger: logger)
        let value: T
        do {
            value = try await body(connection)
        } catch {
            if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
            throw error
        }
        try ensureOpen(connection)
        try await connection.query("COMMIT", logger: logger)
        return value
    }

    /// Which came first, the connection or the deadline: decided once, by whichever side
    /// settles it.
    private final class Race: Sendable {
        enum Winner: UInt8 { case none, leased, expired }
        private let winner = Atomic<UInt8>(Winner.none.rawValue)

        /// True when `side` is the winner (it settled the race, or had already).
        func settle(_ side: Winner) -> Bool {
            let (exchanged, current) = winner.compareExchange(
                expected: Winner.none.rawValue, desired: side.rawValue,
                ordering: .acquiringAndReleasing)
            return exchanged || current == side.rawValue
        }
    }

    private enum Outcome<T: Sendable>: Sendable {
        case value(T)
        case leased
    }

    /// `body`, handed to the one child task that runs it.
    ///
    /// `@unchecked Sendable` holds because the closure is called at most once, by that one
    /// child task, and the task group ends (its children awaited) before
    /// `withoutActuallyEscaping` returns: nothing else can call it, at the same time or later.
    private final class Work<T>: @unchecked Sendable {
        let body: (PostgresConnection) async throws -> T
        init(_ body: @escaping (PostgresConnection) async throws -> T) { self.body = body }
    }
}
