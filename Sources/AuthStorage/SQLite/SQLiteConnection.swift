// SPDX-License-Identifier: Apache-2.0
import GRDBSQLite
import Glibc

/// One SQLite connection in SQLite's C API, with the store's statements prepared once each.
///
/// Why not GRDB: every GRDB access is a `DispatchQueue.sync` onto the connection's queue, and
/// on Swift's cooperative threads that sync usually parks the caller and wakes another thread.
/// A refresh measured about one context switch and 30 to 70 µs per read that way, against a
/// few microseconds for the query itself. Here a statement runs on the calling task's thread
/// (``SQLiteEngine`` makes that one of ``SQLiteThreads``').
///
/// Safety of `@unchecked Sendable`: a connection is used by one caller at a time. A read-only
/// one lives in ``SQLiteReadPool``'s idle list, reached only under that pool's lock, or with
/// the one caller that took it out until it gives it back; the read-write one is used only
/// while ``SQLiteEngine``'s write lock is held. SQLite itself is built thread-safe, so moving
/// a connection from one thread to the next between uses is allowed (SQLITE_OPEN_NOMUTEX only
/// drops the per-call mutex, which one user at a time does not need).
package final class SQLiteConnection: @unchecked Sendable {
    /// A failure, with SQLite's message (which names no bound value).
    package struct Failure: Error, CustomStringConvertible {
        package let code: Int32
        package let message: String

        /// A unique, foreign-key or other constraint failed.
        package var isConstraint: Bool { code & 0xff == SQLITE_CONSTRAINT }
        /// Another connection holds a lock this one needs.
        package var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
        package var description: String { "SQLite error \(code): \(message)" }

        /// The memberwise initialiser, for the whole package.
        package init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// A prepared statement and where its columns are, by name.
    private struct Prepared {
        let statement: OpaquePointer
        let columns: [String: Int32]
    }

    private let handle: OpaquePointer
    private var prepared: [Int: Prepared] = [:]

    /// Opens `path` (`:memory:` for a private in-memory database), read-only or read-write.
    package init(path: String, readOnly: Bool) throws(Failure) {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            var message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the database"
            // The system's reason where there is one ("unable to open database file" alone says little).
            if let db, sqlite3_system_errno(db) != 0 { message += " (\(String(cString: strerror(sqlite3_system_errno(db)))))" }
            sqlite3_close_v2(db)
            throw Failure(code: status, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        handle = db
    }

    deinit {
        for entry in prepared.values { sqlite3_finalize(entry.statement) }
        sqlite3_close_v2(handle)
    }

    /// Whether SQLite opened the main database read-only although asked for read-write (it does
    /// so in silence for a file or file system that refuses writes).
    /// Stops the statement this connection runs now, from any thread (SQLite allows that): it
    /// fails with `SQLITE_INTERRUPT`. A no-op when none runs.
    package func interrupt() { sqlite3_interrupt(handle) }

    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Runs statements given as text, without results (pragmas, migrations, BEGIN/COMMIT).
    package func execute(_ script: String) throws(Failure) {
        let status = sqlite3_exec(handle, script, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status) }
    }

    /// Runs `sql` with `arguments` bound in order and calls `row` for each result row. The
    /// statement is reset before this returns, so no read lock outlives the call.
    package func step(_ sql: SQL, _ arguments: [SQLValue], _ row: (Row) throws -> Void) throws {
        let entry = try statement(sql)
        let statement = entry.statement
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            let status =
                switch argument {
                case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
                case .integer(let value): sqlite3_bind_int64(statement, position, value)
                case .bool(let value): sqlite3_bind_int64(statement, position, value ? 1 : 0)
                case .null: sqlite3_bind_null(statement, position)
                case .blob(let bytes):
                    bytes.withUnsafeBytes {
                        // A zero-length blob, not NULL, for an empty array.
                        sqlite3_bind_blob(statement, position, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), Self.transient)
                    }
                }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status) }
            try row(Row(statement: statement, columns: entry.columns))
        }
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` for a write: it takes the write
    /// lock at once, waiting for another process's, rather than failing at its first write).
    package func transaction<T>(write: Bool, _ body: () async throws -> T) async throws -> T {
        try execute(write ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try await body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func statement(_ sql: SQL) throws(Failure) -> Prepared {
        if let entry = prepared[sql.id] { return entry }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql.text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        var columns: [String: Int32] = [:]
        for column in 0..<sqlite3_column_count(statement) {
            if let name = sqlite3_column_name(statement, column) { columns[String(cString: name)] = column }
        }
        let entry = Prepared(statement: statement, columns: columns)
        prepared[sql.id] = entry
        return entry
    }

    private func failure(_ status: Int32) -> Failure {
        Failure(
            code: sqlite3_extended_errcode(handle) == 0 ? status : sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)))
    }

    /// SQLITE_TRANSIENT: SQLite copies a bound value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The current row of a statement, read by column name.
    package struct Row: SQLRow {
        package let statement: OpaquePointer
        package let columns: [String: Int32]

        private func index(_ column: String) throws -> Int32 {
            guard let index = columns[column] else { throw SQLRowError(column: column) }
            return index
        }

        private func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

        private func string(_ index: Int32) -> String {
            guard let text = sqlite3_column_text(statement, index) else { return "" }
            let count = Int(sqlite3_column_bytes(statement, index))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        }

        package func text(_ column: String) throws -> String {
            let index = try index(column)
            guard !isNull(index) else { throw SQLRowError(column: column) }
            return string(index)
        }

        package func optionalText(_ column: String) throws -> String? {
            let index = try index(column)
            return isNull(index) ? nil : string(index)
        }

        package func int64(_ column: String) throws -> Int64 {
            let index = try index(column)
            guard !isNull(index) else { throw SQLRowError(column: column) }
            return sqlite3_column_int64(statement, index)
        }

        package func optionalInt64(_ column: String) throws -> Int64? {
            let index = try index(column)
            return isNull(index) ? nil : sqlite3_column_int64(statement, index)
        }

        package func bool(_ column: String) throws -> Bool { try int64(column) != 0 }

        package func bytes(_ column: String) throws -> [UInt8] {
            let index = try index(column)
            guard !isNull(index) else { throw SQLRowError(column: column) }
            guard let blob = sqlite3_column_blob(statement, index) else { return [] }
            return Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, index))))
        }

        /// The memberwise initialiser, for the whole package.
        package init(statement: OpaquePointer, columns: [String: Int32]) {
            self.statement = statement
            self.columns = columns
        }
    }
}

extension SQLiteConnection: SQLRunner {
    package func each(_ sql: SQL, _ arguments: [SQLValue], _ row: (Row) throws -> Void) async throws {
        try step(sql, arguments, row)
    }
}
