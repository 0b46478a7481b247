import AuthProtocol
import Logging
import PostgresNIO

/// The PostgreSQL engine of ``AuthStore``: what several `authsh serve` instances share.
///
/// One pool of connections (postgres-nio's `PostgresClient`); every value is a bound
/// parameter (`\(value)` in a `PostgresQuery` is never spliced), columns are read by name,
/// and operations of several statements run in one transaction. Migrations run at start-up
/// under an advisory lock, so two instances starting at once apply them once.
public final class PostgresStore: AuthStore {
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>

    /// Connects (the pool opens connections as requests need them) and migrates.
    /// - Parameter startupTimeout: how long the first connection and the migrations may take
    ///   (the pool itself retries an unreachable database for a minute before it gives up).
    /// - Throws: `StoreError.unavailable` when the database cannot be reached or migrated in time.
    public init(configuration: PostgresClient.Configuration, logger: Logger, startupTimeout: Duration = .seconds(30)) async throws {
        // The pool's own logs say nothing of passwords or bound values; the configuration,
        // which holds the password, is never logged here.
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        running = Task { await client.run() }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in try await PostgresSchema.migrate(self) }
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

    /// Closes the pool. The store answers nothing afterwards.
    public func close() { running.cancel() }

    // MARK: running statements

    /// The rows of `query` (drained: a statement's errors surface only while its rows are read).
    func rows(_ operation: String, _ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        do {
            return try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
        } catch {
            throw Self.translate(error, operation)
        }
    }

    /// The rows of `query`, each made a value by `decode` (a row that does not decode is the
    /// database being unavailable: the schema is not what this code expects).
    func select<T>(_ operation: String, _ query: PostgresQuery, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        let found = try await rows(operation, query)
        do { return try found.map(decode) } catch { throw StoreError.unavailable(operation) }
    }

    /// Runs `query` for its effect.
    func run(_ operation: String, _ query: PostgresQuery) async throws {
        _ = try await rows(operation, query)
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    func transaction<T: Sendable>(_ operation: String, _ body: (PostgresTransaction) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await body(PostgresTransaction(connection: connection, logger: logger))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.translate(error, operation)
        }
    }

    /// postgres-nio's errors as the routes understand them: a unique or foreign-key violation
    /// is a conflict, anything else the database being unavailable. Neither keeps the SQL or
    /// a bound value.
    static func translate(_ error: any Error, _ operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        switch sqlState(of: error) {
        case PostgresError.Code.uniqueViolation.raw?, PostgresError.Code.foreignKeyViolation.raw?:
            return .conflict(operation)
        default:
            return .unavailable(operation)
        }
    }

    static func sqlState(of error: any Error) -> String? {
        switch error {
        case let e as PSQLError:
            return e.serverInfo?[.sqlState]
        case let t as PostgresTransactionError:
            for inner in [t.closureError, t.commitError, t.beginError] {
                if let inner, let state = sqlState(of: inner) { return state }
            }
            return nil
        default:
            return nil
        }
    }

    static func json(_ doc: EJSONDocument) -> String { EJSON.document(doc).encodedString() }

    static func document(_ text: String?) -> EJSONDocument? {
        guard let text, case .document(let d)? = try? EJSON(parsing: text) else { return nil }
        return d
    }
}

/// The statements of one transaction.
struct PostgresTransaction {
    let connection: PostgresConnection
    let logger: Logger

    /// The rows of `query`, drained.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await connection.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// Runs `query` for its effect.
    func run(_ query: PostgresQuery) async throws {
        _ = try await rows(query)
    }

    /// How many rows `query` (a statement with `RETURNING 1`) touched.
    func count(_ query: PostgresQuery) async throws -> Int {
        try await rows(query).count
    }
}

/// Reading columns by name.
extension PostgresRandomAccessRow {
    func text(_ column: String) throws -> String { try self[column].decode(String.self) }
    func optionalText(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    func int64(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    func optionalInt64(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }
    func bool(_ column: String) throws -> Bool { try self[column].decode(Bool.self) }
    func bytes(_ column: String) throws -> [UInt8] { Array(try self[column].decode(ByteBuffer.self).readableBytesView) }
}

extension Array where Element == UInt8 {
    /// As `bytea` (a `[UInt8]` would bind as a `"char"[]`).
    var bytea: ByteBuffer { ByteBuffer(bytes: self) }
}

extension PostgresDatabase {
    /// postgres-nio's configuration: the socket or host, the user, the password, TLS as
    /// `sslmode` says (libpq's meanings), the pool's size.
    var clientConfiguration: PostgresClient.Configuration {
        var c: PostgresClient.Configuration
        if let socketDirectory {
            c = .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            var tls: PostgresClient.Configuration.TLS
            switch sslMode {
            case "disable":
                tls = .disable
            case "require":
                var unverified = TLSConfiguration.makeClientConfiguration()
                unverified.certificateVerification = .none
                tls = .require(unverified)
            case "verify-ca":
                var caOnly = TLSConfiguration.makeClientConfiguration()
                caOnly.certificateVerification = .noHostnameVerification
                tls = .require(caOnly)
            case "verify-full":
                tls = .require(.makeClientConfiguration())
            default:
                tls = .prefer(.makeClientConfiguration())
            }
            c = .init(host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: tls)
        }
        c.options.maximumConnections = poolSize
        return c
    }
}
