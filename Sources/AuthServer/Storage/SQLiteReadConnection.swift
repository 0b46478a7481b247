import GRDBSQLite

/// A SQLite connection for the store's hot point reads, in SQLite's C API, with its statements
/// prepared once.
///
/// Why not GRDB here: every GRDB read is a `DispatchQueue.sync` onto the reader's queue, and on
/// Swift's cooperative threads that sync usually parks the caller and wakes another thread. A
/// refresh measured about one context switch and 30 to 70 µs per read that way, against a few
/// microseconds for the query itself; looking columns up by name cost more than the query too.
/// Writes stay with GRDB (its single writer, transactions and migrations).
///
/// Safety of `@unchecked Sendable`: a connection is used by one caller at a time. It lives in
/// ``SQLiteReadPool``'s idle list, reached only under that pool's lock, or with the one caller
/// that took it out until it gives it back; a borrowed one (see ``init(borrowing:)``) never
/// leaves the GRDB closure that lent it. SQLite itself is built thread-safe, so even the
/// move from one thread to the next between uses is allowed (SQLITE_OPEN_NOMUTEX only drops
/// the per-call mutex, which one user at a time does not need).
final class SQLiteReadConnection: @unchecked Sendable {
    /// The statements this connection runs, prepared on first use.
    enum Query: Int, CaseIterable {
        case begin, commit, rollback, session, sessionState, user, identities, identityOwner, userpassAccount
        case apiKeysOfUser, apiKeyOfUser, apiKeyByDigest, pluginValue

        var sql: String {
            switch self {
            case .begin: "BEGIN"
            case .commit: "COMMIT"
            case .rollback: "ROLLBACK"
            case .session: """
                SELECT s.id, s.app_id, s.user_id, s.device_id, s.provider_type, s.identity_id, s.refresh_digest,
                       s.created_at, s.expires_at, u.type, u.data, u.custom_data, u.disabled, u.created_at, s.last_used
                FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id WHERE s.id = ?
                """
            case .sessionState: """
                SELECT s.app_id, s.user_id, u.disabled
                FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id WHERE s.id = ?
                """
            case .user: "SELECT id, app_id, type, data, custom_data, disabled, created_at FROM users WHERE id = ? AND app_id = ?"
            case .identities:
                "SELECT provider_type, external_id, provider_id, data, email FROM identities WHERE user_id = ? ORDER BY position"
            case .identityOwner: "SELECT user_id FROM identities WHERE app_id = ? AND provider_type = ? AND external_id = ?"
            case .userpassAccount: """
                SELECT app_id, email, password_hash, identity_id, confirmed, created_at
                FROM userpass_accounts WHERE app_id = ? AND email = ?
                """
            case .apiKeysOfUser: "\(Self.apiKeyColumns) WHERE user_id = ? ORDER BY seq"
            case .apiKeyOfUser: "\(Self.apiKeyColumns) WHERE id = ? AND user_id = ?"
            case .apiKeyByDigest: "\(Self.apiKeyColumns) WHERE digest = ? AND app_id = ?"
            case .pluginValue: "SELECT value FROM plugin_values WHERE app_id = ? AND key = ?"
            }
        }

        private static let apiKeyColumns = "SELECT id, app_id, user_id, name, digest, disabled, created_at FROM api_keys"
    }

    /// A value bound to a `?` of a query.
    enum Argument {
        case text(String)
        case blob([UInt8])
    }

    /// A failure, with SQLite's message (which names no bound value).
    struct Failure: Error {
        let code: Int32
        let message: String
    }

    private let handle: OpaquePointer
    /// False for a connection lent by GRDB: it is not ours to close.
    private let owned: Bool
    private var statements: [OpaquePointer?] = Array(repeating: nil, count: Query.allCases.count)

    /// Opens `path` read-only.
    init(path: String) throws(Failure) {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the database"
            sqlite3_close_v2(db)
            throw Failure(code: status, message: message)
        }
        sqlite3_busy_timeout(db, 5000)
        handle = db
        owned = true
    }

    /// Uses a connection GRDB lends inside one of its closures (the in-memory database, which
    /// no other connection can open). Its statements are finalized when this object goes.
    init(borrowing handle: OpaquePointer) {
        self.handle = handle
        owned = false
    }

    deinit {
        for statement in statements where statement != nil { sqlite3_finalize(statement) }
        if owned { sqlite3_close_v2(handle) }
    }

    /// Runs `query` with `arguments` bound in order and calls `row` for each result row. The
    /// statement is reset before this returns, so no read lock outlives the call.
    func each(_ query: Query, _ arguments: [Argument], _ row: (Row) throws -> Void) throws {
        let statement = try prepared(query)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, argument) in arguments.enumerated() {
            let status = switch argument {
            case .text(let text): sqlite3_bind_text(statement, Int32(index + 1), text, -1, Self.transient)
            case .blob(let bytes): bytes.withUnsafeBytes {
                sqlite3_bind_blob(statement, Int32(index + 1), $0.baseAddress, Int32($0.count), Self.transient)
            }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status) }
            try row(Row(statement: statement))
        }
    }

    /// The first row of `query` decoded by `decode`, or nil.
    func first<T>(_ query: Query, _ arguments: [Argument], _ decode: (Row) throws -> T) throws -> T? {
        var result: T?
        try each(query, arguments) { row in
            if result == nil { result = try decode(row) }
        }
        return result
    }

    /// Every row of `query`, decoded by `decode`.
    func all<T>(_ query: Query, _ arguments: [Argument], _ decode: (Row) throws -> T) throws -> [T] {
        var results: [T] = []
        try each(query, arguments) { results.append(try decode($0)) }
        return results
    }

    /// Runs `body` in one read transaction, so its several statements see one state.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try each(.begin, []) { _ in }
        do {
            let result = try body()
            try each(.commit, []) { _ in }
            return result
        } catch {
            try? each(.rollback, []) { _ in }
            throw error
        }
    }

    private func prepared(_ query: Query) throws(Failure) -> OpaquePointer {
        if let statement = statements[query.rawValue] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, query.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        statements[query.rawValue] = statement
        return statement
    }

    private func failure(_ status: Int32) -> Failure {
        Failure(code: status, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// SQLITE_TRANSIENT: SQLite copies a bound value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The current row of a statement, read by column index (the order of the query's SELECT).
    struct Row {
        let statement: OpaquePointer

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

        func string(_ column: Int32) -> String {
            guard let text = sqlite3_column_text(statement, column) else { return "" }
            let count = Int(sqlite3_column_bytes(statement, column))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        }

        func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

        func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

        func bool(_ column: Int32) -> Bool { int64(column) != 0 }

        func bytes(_ column: Int32) -> [UInt8] {
            guard let blob = sqlite3_column_blob(statement, column) else { return [] }
            let count = Int(sqlite3_column_bytes(statement, column))
            return Array(UnsafeRawBufferPointer(start: blob, count: count))
        }
    }
}
