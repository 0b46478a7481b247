// SPDX-License-Identifier: Apache-2.0
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL engine of ``SQLStore``: what several `authsh serve` instances share.
///
/// One pool of connections (postgres-nio's `PostgresClient`); every value is a bound
/// parameter, and operations of several statements run in one transaction. Migrations run at
/// start-up under an advisory lock, so two instances starting at once apply them once.
package final class PostgresEngine: SQLEngine {
    package let client: PostgresClient
    package let logger: Logger
    package let poolSize: Int
    /// How long an operation may wait for a connection (``PostgresLease/deadline``; tests on a
    /// loaded machine give a longer bound).
    package let leaseDeadline: Duration
    package static let updatesInReads = true
    private let running: Task<Void, Never>
    private let committed = CommitCount()
    /// Group commit of ``append(_:_:_:)``'s statements.
    private let batches: PostgresStatementBatches

    package var transactionsCommitted: Int { committed.count }

    /// Connects (the pool opens connections as requests need them) and migrates.
    /// - Parameter startupTimeout: how long the first connection and the migrations may take
    ///   (the pool itself retries an unreachable database for a minute before it gives up).
    /// - Throws: `StoreError.unavailable` when the database cannot be reached or migrated in time.
    package init(
        configuration: PostgresClient.Configuration, logger: Logger, startupTimeout: Duration, leaseDeadline: Duration = PostgresLease.deadline
    ) async throws {
        // The pool's own logs say nothing of passwords or bound values; the configuration,
        // which holds the password, is never logged here.
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        poolSize = configuration.options.maximumConnections
        self.leaseDeadline = leaseDeadline
        running = Task { await client.run() }
        batches = PostgresStatementBatches(
            runner: Self.batchRunner(client: client, logger: logger, committed: committed, deadline: leaseDeadline))
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in try await PostgresSchema.migrate(self, deadline: startupTimeout) }
                group.addTask {
                    try await Task.sleep(for: startupTimeout)
                    throw StoreError.unavailable("connect: no answer within \(startupTimeout.components.seconds) s")
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            running.cancel()
            throw error
        }
    }

    deinit { running.cancel() }

    /// Closes the pool. The engine answers nothing afterwards.
    package func close() { running.cancel() }

    package func read<T: Sendable>(_ operation: String, _ body: (PostgresRunner) async throws -> T) async throws -> T {
        do {
            return try await PostgresLease.run(
                client, transaction: false, logger: logger, operation: operation, deadline: leaseDeadline
            ) { connection in
                try await body(PostgresRunner(connection: connection, logger: logger))
            }
        } catch {
            throw Self.translate(error, operation)
        }
    }

    package func snapshot<T: Sendable>(_ operation: String, _ body: (PostgresRunner) async throws -> T) async throws -> T {
        try await transaction(operation, deadline: leaseDeadline) { runner in
            try await runner.run(Self.readSnapshot, [])
            return try await body(runner)
        }
    }

    private static let readSnapshot: SQL = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"

    package func write<T: Sendable>(_ operation: String, _ body: (PostgresRunner) async throws -> T) async throws -> T {
        try await write(operation, deadline: leaseDeadline, body)
    }

    /// ``write(_:_:)`` with its own deadline for a connection.
    package func write<T: Sendable>(_ operation: String, deadline: Duration, _ body: (PostgresRunner) async throws -> T) async throws -> T {
        let value = try await transaction(operation, deadline: deadline, body)
        committed.add()
        return value
    }

    package func append(_ operation: String, _ sql: SQL, _ arguments: [SQLValue]) async throws {
        do {
            try await batches.run(operation, sql, arguments)
        } catch {
            throw Self.translate(error, operation)
        }
    }

    /// The runner of ``batches``: one statement alone outside a transaction (one round trip),
    /// several in one. It holds the pool, not the engine.
    private static func batchRunner(
        client: PostgresClient, logger: Logger, committed: CommitCount, deadline: Duration
    ) -> PostgresStatementBatches.Runner {
        PostgresStatementBatches.Runner(
            alone: { statement in
                try await PostgresLease.run(
                    client, transaction: false, logger: logger, operation: statement.operation, deadline: deadline
                ) {
                    try await PostgresRunner(connection: $0, logger: logger).run(statement.sql, statement.arguments)
                }
                committed.add()
            },
            together: { batch in
                try await PostgresLease.run(
                    client, transaction: true, logger: logger, operation: batch[0].operation, deadline: deadline
                ) {
                    let runner = PostgresRunner(connection: $0, logger: logger)
                    for statement in batch { try await runner.run(statement.sql, statement.arguments) }
                }
                committed.add()
            },
            refused: { sqlState(of: $0) != nil })
    }

    /// Transactions committed (``transactionsCommitted``).
    package final class CommitCount: Sendable {
        private let value = Atomic<Int>(0)
        package func add() { value.add(1, ordering: .relaxed) }
        package var count: Int { value.load(ordering: .relaxed) }
    }

    private func transaction<T: Sendable>(
        _ operation: String, deadline: Duration, _ body: (PostgresRunner) async throws -> T
    ) async throws -> T {
        do {
            return try await PostgresLease.run(client, transaction: true, logger: logger, operation: operation, deadline: deadline) { connection in
                try await body(PostgresRunner(connection: connection, logger: logger))
            }
        } catch {
            throw Self.translate(error, operation)
        }
    }

    /// postgres-nio's errors as the routes understand them: a unique or foreign-key violation
    /// is a conflict, anything else the database being unavailable. Neither keeps the SQL or
    /// a bound value.
    package static func translate(_ error: any Error, _ operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        switch sqlState(of: error) {
        case PostgresError.Code.uniqueViolation.raw?, PostgresError.Code.foreignKeyViolation.raw?:
            return .conflict(operation)
        default:
            return .unavailable(operation)
        }
    }

    package static func sqlState(of error: any Error) -> String? {
        switch error {
        case let e as PSQLError: e.serverInfo?[.sqlState]
        default: nil
        }
    }
}

/// Runs statements on the connection of an operation (``PostgresLease``).
package struct PostgresRunner: SQLRunner {
    package let connection: PostgresConnection
    package let logger: Logger

    package func each(_ sql: SQL, _ arguments: [SQLValue], _ row: (PostgresRandomAccessRow) throws -> Void) async throws {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .text(let text): binds.append(text)
            case .integer(let value): binds.append(value)
            case .bool(let value): binds.append(value)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            case .null: binds.appendNull()
            }
        }
        try PostgresLease.ensureOpen(connection)
        // Drained before the rows are decoded: a statement's errors surface only while its
        // rows are read.
        let rows =
            if let slot = PostgresStatements.slot(for: sql) {
                try await prepared(slot, binds)
            } else {
                try await unnamed(PostgresQuery(unsafeSQL: sql.postgres, binds: binds))
            }
        for result in rows { try row(result.makeRandomAccess()) }
    }

    private func prepared<Slot: PostgresStatementSlot>(_ slot: Slot.Type, _ binds: PostgresBindings) async throws -> [PostgresRow] {
        let statement = PostgresSlotStatement<Slot>(bindings: binds)
        let sequence = try await connection.execute(statement, logger: logger)
        var rows: [PostgresRow] = []
        for try await row in sequence { rows.append(row) }
        return rows
    }

    private func unnamed(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    /// The memberwise initialiser, for the whole package.
    package init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }
}

/// Reading columns by name.
extension PostgresRandomAccessRow: SQLRow {
    package func text(_ column: String) throws -> String { try self[column].decode(String.self) }
    package func optionalText(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    package func int64(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    package func optionalInt64(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }
    package func bool(_ column: String) throws -> Bool { try self[column].decode(Bool.self) }
    package func bytes(_ column: String) throws -> [UInt8] { Array(try self[column].decode(ByteBuffer.self).readableBytesView) }
}

/// The PostgreSQL store (what several instances share).
package typealias PostgresStore = SQLStore<PostgresEngine>

extension SQLStore where Engine == PostgresEngine {
    /// Connects to PostgreSQL and migrates.
    /// - Parameter startupTimeout: how long the first connection and the migrations may take.
    /// - Throws: `StoreError.unavailable` when the database cannot be reached or migrated in time.
    package convenience init(
        configuration: PostgresClient.Configuration, logger: Logger,
        startupTimeout: Duration = .seconds(30), leaseDeadline: Duration = PostgresLease.deadline
    ) async throws {
        self.init(
            engine: try await PostgresEngine(
                configuration: configuration, logger: logger, startupTimeout: startupTimeout, leaseDeadline: leaseDeadline))
    }
}
