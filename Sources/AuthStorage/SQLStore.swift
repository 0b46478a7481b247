// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// ``AuthStore`` on a SQL engine: every operation written once, for SQLite and PostgreSQL.
///
/// The statements and the mapping of their columns live with their tables (`Tables/`: one
/// file per table, columns read by name); this type holds the operations made of them and
/// which of them run in one transaction. The engines (``SQLiteEngine``, ``PostgresEngine``)
/// run statements and map failures, nothing else. A new column is one change to its table,
/// its record and a migration per engine (`SQLiteSchema`, `PostgresSchema`).
package final class SQLStore<Engine: SQLEngine>: AuthStore, MeteredStore {
    package let engine: MeteredEngine<Engine>
    /// The last-use marks of recent sessions, so that a refresh that needs none reads plainly.
    package let sessionMarks = SessionMarks()

    package init(engine: Engine) {
        self.engine = MeteredEngine(engine)
    }

    package var meter: DatabaseMeter { engine.meter }
    package var transactionsCommitted: Int { engine.base.transactionsCommitted }

    public func close() { engine.base.close() }

    // MARK: signing keys

    public func existingSigningKey(app: String, algorithm: String) async throws -> [UInt8]? {
        try await engine.read("read signing key") { r in
            try await r.first(SigningKeysTable.select, [.text(app), .text(algorithm)]) { try $0.bytes("material") }
        }
    }

    public func signingKey(app: String, algorithm: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        // Made only when missing: some keys (RSA) take a while to make.
        if let existing = try await existingSigningKey(app: app, algorithm: algorithm) { return existing }
        let fresh = make()
        return try await engine.write("store signing key") { r in
            // The first instance's key wins when two start together.
            try await r.run(SigningKeysTable.insert, [.text(app), .text(algorithm), .blob(fresh)])
            return try await r.first(SigningKeysTable.select, [.text(app), .text(algorithm)]) { try $0.bytes("material") } ?? fresh
        }
    }

    public func ping() async throws {
        try await engine.read("ping") { r in try await r.run(PingStatement.sql, []) }
    }

    // MARK: plugin values

    public func pluginValue(app: String, key: String) async throws -> EJSON? {
        let text = try await engine.read("read plugin value") { r in
            try await r.first(PluginValuesTable.select, [.text(app), .text(key)]) { try $0.text("value") }
        }
        return try text.map { try EJSON(parsing: $0) }
    }

    public func setPluginValue(_ value: EJSON, app: String, key: String, keyLimit: Int) async throws -> Bool {
        let text = value.encodedString(.canonical)
        return try await engine.write("write plugin value") { r in
            if try await r.first(PluginValuesTable.exists, [.text(app), .text(key)], { try $0.int64("found") }) == nil {
                let held = try await r.first(PluginValuesTable.count, [.text(app)]) { try $0.int64("n") } ?? 0
                guard held < keyLimit else { return false }
            }
            try await r.run(PluginValuesTable.upsert, [.text(app), .text(key), .text(text)])
            return true
        }
    }

    public func deletePluginValue(app: String, key: String) async throws {
        try await engine.write("delete plugin value") { r in try await r.run(PluginValuesTable.delete, [.text(app), .text(key)]) }
    }

    // MARK: housekeeping

    public func deleteAnonymousUsers(createdBefore time: Int64) async throws -> Int {
        try await engine.write("delete old anonymous users") { r in
            try await r.count(UsersTable.deleteAnonymous, [.integer(time), .text(ProviderType.anonymous), .text(ProviderType.anonymous)])
        }
    }

    public func deleteExpiredPendingCredentials(at time: Int64) async throws -> Int {
        try await engine.write("delete expired pending credentials") { r in
            try await r.count(PendingCredentialsTable.deleteExpired, [.integer(time)])
        }
    }

    public func wipe(app: String) async throws {
        try await engine.write("wipe app") { r in
            for statement in WipeStatements.all { try await r.run(statement, [.text(app)]) }
        }
    }
}

/// `DELETE FROM t WHERE app_id = ?` for each table of an app's users (made once: statements are
/// prepared by identity).
private enum WipeStatements {
    static let all: [SQL] = [
        "users", "userpass_accounts", "one_time_tokens", "sessions", "api_keys", "pending_credentials",
        "sign_ins", "mail_queue", "trigger_runs",
    ]
    .map { SQL("DELETE FROM \($0) WHERE app_id = ?") }
}

/// `/readyz`'s question to the database: one that reads the schema and a table (a bare
/// `SELECT 1` would not touch SQLite's file).
private enum PingStatement {
    static let sql: SQL = "SELECT 1 AS one FROM signing_keys LIMIT 1"
}
