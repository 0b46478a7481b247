import PostgresNIO
import Synchronization

/// A connection of the pool within a deadline: what every operation of ``PostgresEngine`` runs
/// on. postgres-nio's pool has no deadline of its own for a lease. While PostgreSQL is away a
/// request waited for a minute (the pool's circuit breaker), and one queued as the database
/// went away could wait for ever after it came back (the server then never finished a graceful
/// shutdown either). Past the deadline the lease is cancelled, which takes it out of the
/// pool's queue, and the operation fails as unavailable: the client gets 503 and
/// `Retry-After`. The deadline is on getting a connection only; the operation's statements
/// then take as long as they take.
enum PostgresLease {
    /// How long an operation may wait for a connection.
    static let deadline: Duration = .seconds(5)

    /// Runs `body` on a connection of `client` (in a transaction when `transaction`), or throws
    /// `StoreError.unavailable` when no connection came within `deadline` (``deadline`` but for
    /// the migrations at start-up, which wait as long as the start-up may take).
    static func run<T: Sendable>(
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
                    // won never starts (in a transaction it is rolled back), so a 503 had no effect.
                    let value =
                        if transaction {
                            try await client.withTransaction(logger: logger) { connection in
                                guard race.settle(.leased) else { throw late }
                                return try await work.body(connection)
                            }
                        } else {
                            try await client.withConnection { connection in
                                guard race.settle(.leased) else { throw late }
                                return try await work.body(connection)
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
