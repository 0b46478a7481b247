import AuthProtocol
import Foundation
import GRDB
import GRDBSQLite

/// The SQLite engine of ``AuthStore``: a file in WAL mode, or an in-memory database for tests.
///
/// Writes go through GRDB (one writer, transactions, migrations). Reads are point queries on
/// indexed keys and run on the caller's thread through SQLite's C API, on a pool of read-only
/// connections (``SQLiteReadConnection`` says why). Statements are prepared once and cached.
public final class SQLiteStore: AuthStore {
    private let writer: any DatabaseWriter
    /// Raw read-only connections for the hot point reads (nil for an in-memory database).
    private let pointReads: SQLiteReadPool?

    /// Opens (creating and migrating) the database.
    /// - Parameter path: a file path, or nil for an in-memory database.
    public init(path: String?) throws {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        if let path {
            let configuration = config
            writer = try Self.retryingWhileLocked { try DatabasePool(path: path, configuration: configuration) }
            pointReads = SQLiteReadPool(path: path, capacity: max(2, ProcessInfo.processInfo.activeProcessorCount * 2))
        } else {
            writer = try DatabaseQueue(configuration: config)
            pointReads = nil
        }
        let writer = self.writer
        try Self.retryingWhileLocked { try SQLiteSchema.migrator.migrate(writer) }
    }

    /// Runs `body` again while another process holds the lock it needs, for up to 10 s.
    /// Switching a new file to WAL needs an exclusive lock and SQLite does not wait for it
    /// (busy handlers are not called there): two processes opening one new database at once
    /// (two `authsh` runs on a fresh `--data`) would otherwise fail with "database is locked".
    private static func retryingWhileLocked<T>(_ body: () throws -> T) throws -> T {
        var attempts = 0
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && attempts < 200 {
                attempts += 1
                usleep(50_000)
            }
        }
    }

    // MARK: running statements

    /// A read through SQLite's C API, on the caller's thread: on a pooled read-only connection,
    /// or for an in-memory database (which no other connection can open) on GRDB's own. A
    /// read of several statements runs them in ``SQLiteReadConnection/transaction(_:)``.
    private func pointRead<T>(_ operation: String, _ body: (SQLiteReadConnection) throws -> T) throws -> T {
        do {
            if let pointReads { return try pointReads.withConnection(body) }
            return try writer.unsafeRead { db in
                guard let handle = db.sqliteConnection else { throw StoreError.unavailable(operation) }
                return try body(SQLiteReadConnection(borrowing: handle))
            }
        } catch is SQLiteReadConnection.Failure {
            throw StoreError.unavailable(operation)
        } catch {
            throw Self.translate(error, operation)
        }
    }

    /// A read through GRDB (a statement off the hot paths), on the latest committed state.
    func read<T: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do { return try await writer.read(body) } catch { throw Self.translate(error, operation) }
    }

    func write<T: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do { return try await writer.write(body) } catch { throw Self.translate(error, operation) }
    }

    /// GRDB errors name the SQL but not the bound values (GRDB's default); we keep only the operation.
    private static func translate(_ error: any Error, _ operation: String) -> any Error {
        if let e = error as? DatabaseError {
            return e.resultCode == .SQLITE_CONSTRAINT ? StoreError.conflict(operation) : StoreError.unavailable(operation)
        }
        return error
    }

    static func json(_ doc: EJSONDocument) -> String { EJSON.document(doc).encodedString() }

    static func document(_ text: String?) -> EJSONDocument? {
        guard let text, case .document(let d)? = try? EJSON(parsing: text) else { return nil }
        return d
    }

    // MARK: signing keys

    public func existingSigningKey(app: String, algorithm: String) async throws -> [UInt8]? {
        do {
            return try await writer.read { db in
                try Data.fetchOne(db, sql: "SELECT material FROM signing_keys WHERE app_id = ? AND algorithm = ?",
                                  arguments: [app, algorithm]).map(Array.init)
            }
        } catch { throw Self.translate(error, "read signing key") }
    }

    public func signingKey(app: String, algorithm: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let sql = "SELECT material FROM signing_keys WHERE app_id = ? AND algorithm = ?"
        // Made only when missing: some keys (RSA) take a while to make.
        if let existing = try await existingSigningKey(app: app, algorithm: algorithm) { return existing }
        let fresh = Data(make())
        return try await write("read signing key") { db in
            // INSERT OR IGNORE keeps the first key when two instances start together.
            try db.execute(sql: "INSERT OR IGNORE INTO signing_keys (app_id, algorithm, material) VALUES (?, ?, ?)",
                           arguments: [app, algorithm, fresh])
            return Array(try Data.fetchOne(db, sql: sql, arguments: [app, algorithm]) ?? fresh)
        }
    }

    // MARK: users

    public func insertUser(_ user: UserRecord) async throws {
        try await write("create user") { db in
            try db.execute(sql: """
                INSERT INTO users (id, app_id, type, data, custom_data, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [user.id, user.appId, user.type, Self.json(user.data), user.customData.map(Self.json),
                                 user.disabled, user.createdAt])
            for (position, identity) in user.identities.enumerated() {
                try Self.insertIdentity(db, identity, userId: user.id, app: user.appId, position: position)
            }
        }
    }

    private static func insertIdentity(_ db: Database, _ identity: IdentityRecord, userId: String, app: String, position: Int) throws {
        try db.cachedStatement(sql: """
            INSERT INTO identities (app_id, provider_type, external_id, user_id, provider_id, data, position, email)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [app, identity.providerType, identity.externalId, userId, identity.providerId,
                                     json(identity.data), position, identity.email])
    }

    public func user(id: String, app: String) async throws -> UserRecord? {
        try pointRead("read user") { c in try c.transaction { try Self.user(c, id: id, app: app) } }
    }

    public func user(app: String, providerType: String, externalId: String) async throws -> UserRecord? {
        try pointRead("read user") { c in
            try c.transaction {
                guard let id = try c.first(.identityOwner, [.text(app), .text(providerType), .text(externalId)], { $0.string(0) })
                else { return nil }
                return try Self.user(c, id: id, app: app)
            }
        }
    }

    /// The user with its identities; run inside a transaction.
    private static func user(_ c: SQLiteReadConnection, id: String, app: String) throws -> UserRecord? {
        guard var user = try c.first(.user, [.text(id), .text(app)], Self.user) else { return nil }
        user.identities = try identities(c, userId: id)
        return user
    }

    private static func user(_ row: SQLiteReadConnection.Row) -> UserRecord {
        UserRecord(id: row.string(0), appId: row.string(1), type: row.string(2), data: document(row.optionalString(3)) ?? [:],
                   customData: document(row.optionalString(4)), disabled: row.bool(5), createdAt: row.int64(6))
    }

    private static func identities(_ c: SQLiteReadConnection, userId: String) throws -> [IdentityRecord] {
        var identities: [IdentityRecord] = []
        try c.each(.identities, [.text(userId)]) { row in
            identities.append(IdentityRecord(externalId: row.string(1), providerType: row.string(0), providerId: row.string(2),
                                             data: document(row.optionalString(3)) ?? [:], email: row.optionalString(4)))
        }
        return identities
    }

    public func userId(app: String, providerType: String, externalId: String) async throws -> String? {
        try pointRead("find identity") { c in
            try c.first(.identityOwner, [.text(app), .text(providerType), .text(externalId)]) { $0.string(0) }
        }
    }

    public func addIdentity(_ identity: IdentityRecord, toUser userId: String, app: String, profile: EJSONDocument) async throws {
        try await write("link identity") { db in
            let position = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(position), -1) + 1 FROM identities WHERE user_id = ?",
                                            arguments: [userId]) ?? 0
            try Self.insertIdentity(db, identity, userId: userId, app: app, position: position)
            try db.execute(sql: "UPDATE users SET data = ? WHERE id = ?", arguments: [Self.json(profile), userId])
        }
    }

    public func removeIdentity(app: String, userId: String, providerType: String, externalId: String) async throws -> IdentityRemoval {
        try await write("unlink identity") { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM identities WHERE user_id = ? AND app_id = ?",
                                         arguments: [userId, app]) ?? 0
            let held = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM identities WHERE user_id = ? AND app_id = ? AND provider_type = ? AND external_id = ?
                """, arguments: [userId, app, providerType, externalId]) ?? 0
            guard held == 1 else { return .notFound }
            guard count > 1 else { return .lastIdentity }
            if providerType == ProviderType.userpass {
                try db.execute(sql: "DELETE FROM userpass_accounts WHERE app_id = ? AND identity_id = ?", arguments: [app, externalId])
            }
            try db.execute(sql: "DELETE FROM identities WHERE app_id = ? AND provider_type = ? AND external_id = ?",
                           arguments: [app, providerType, externalId])
            return .removed
        }
    }

    public func setCustomData(_ data: EJSONDocument?, userId: String, app: String) async throws -> Bool {
        try await write("set custom data") { db in
            try db.execute(sql: "UPDATE users SET custom_data = ? WHERE id = ? AND app_id = ?",
                           arguments: [data.map(Self.json), userId, app])
            return db.changesCount > 0
        }
    }

    public func deleteUser(id: String, app: String) async throws {
        try await write("delete user") { db in
            try db.execute(sql: """
                DELETE FROM userpass_accounts WHERE app_id = ? AND identity_id IN
                    (SELECT external_id FROM identities WHERE user_id = ? AND provider_type = ?)
                """, arguments: [app, id, ProviderType.userpass])
            try db.execute(sql: "DELETE FROM users WHERE id = ? AND app_id = ?", arguments: [id, app])
        }
    }

    // MARK: email/password

    public func userpassAccount(app: String, email: String) async throws -> UserpassAccount? {
        try pointRead("read account") { c in
            try c.first(.userpassAccount, [.text(app), .text(email)]) {
                UserpassAccount(appId: $0.string(0), email: $0.string(1), passwordHash: $0.string(2), identityId: $0.string(3),
                                confirmed: $0.bool(4), createdAt: $0.int64(5))
            }
        }
    }

    public func insertUserpassAccount(_ a: UserpassAccount) async throws {
        try await write("register") { db in
            try db.execute(sql: """
                INSERT INTO userpass_accounts (app_id, email, password_hash, identity_id, confirmed, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [a.appId, a.email, a.passwordHash, a.identityId, a.confirmed, a.createdAt])
        }
    }

    public func deleteUserpassAccount(app: String, email: String) async throws {
        try await write("delete account") { db in
            try db.execute(sql: "DELETE FROM userpass_accounts WHERE app_id = ? AND email = ?", arguments: [app, email])
        }
    }

    public func confirmUserpassAccount(app: String, email: String) async throws {
        try await write("confirm account") { db in
            try db.execute(sql: "UPDATE userpass_accounts SET confirmed = 1 WHERE app_id = ? AND email = ?", arguments: [app, email])
        }
    }

    public func setPassword(app: String, email: String, hash: String) async throws {
        try await write("set password") { db in
            try db.execute(sql: "UPDATE userpass_accounts SET password_hash = ? WHERE app_id = ? AND email = ?",
                           arguments: [hash, app, email])
        }
    }

    public func resetPassword(app: String, email: String, hash: String) async throws {
        try await setPassword(app: app, email: email, hash: hash, endingSessionsBut: nil, operation: "reset password")
    }

    public func changePassword(app: String, email: String, hash: String, keepSession: String) async throws {
        try await setPassword(app: app, email: email, hash: hash, endingSessionsBut: keepSession, operation: "change password")
    }

    /// A new password, and every session of the account's user ended but `keep`, in one transaction.
    private func setPassword(app: String, email: String, hash: String, endingSessionsBut keep: String?, operation: String) async throws {
        try await write(operation) { db in
            try db.execute(sql: "UPDATE userpass_accounts SET password_hash = ? WHERE app_id = ? AND email = ?",
                           arguments: [hash, app, email])
            try db.execute(sql: """
                DELETE FROM sessions WHERE app_id = ? AND id IS NOT ? AND user_id IN
                    (SELECT i.user_id FROM identities i JOIN userpass_accounts a
                        ON i.app_id = a.app_id AND i.provider_type = ? AND i.external_id = a.identity_id
                     WHERE a.app_id = ? AND a.email = ?)
                """, arguments: [app, keep, ProviderType.userpass, app, email])
        }
    }

    public func insertToken(_ t: OneTimeToken, now: Int64, keep: Int) async throws {
        try await write("store token") { db in
            // Earlier tokens stay valid until they expire or one of them is used; only the
            // expired ones, and the oldest past `keep`, go.
            try db.execute(sql: """
                DELETE FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ? AND (expires_at <= ? OR id IN
                    (SELECT id FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ?
                     ORDER BY expires_at DESC, id DESC LIMIT -1 OFFSET ?))
                """, arguments: [t.appId, t.kind.rawValue, t.email, now, t.appId, t.kind.rawValue, t.email, max(0, keep - 1)])
            try db.execute(sql: """
                INSERT INTO one_time_tokens (id, app_id, kind, email, digest, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [t.id, t.appId, t.kind.rawValue, t.email, Data(t.digest), t.expiresAt])
        }
    }

    public func discardToken(app: String, id: String) async throws {
        try await write("discard token") { db in
            try db.execute(sql: "DELETE FROM one_time_tokens WHERE id = ? AND app_id = ?", arguments: [id, app])
        }
    }

    public func consumeToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String? {
        try await write("use token") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT email, digest, expires_at FROM one_time_tokens WHERE id = ? AND app_id = ? AND kind = ?
                """, arguments: [id, app, kind.rawValue]) else { return nil }
            let stored: Data = row["digest"]
            guard Secrets.constantTimeEqual(Array(stored), digest) else { return nil }
            let email: String = row["email"]
            let expires: Int64 = row["expires_at"]
            guard expires > now else {
                try db.execute(sql: "DELETE FROM one_time_tokens WHERE id = ?", arguments: [id])
                return nil
            }
            // Used: it and every other token of its kind for that email are spent.
            try db.execute(sql: "DELETE FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ?",
                           arguments: [app, kind.rawValue, email])
            return email
        }
    }

    // MARK: sessions

    public func insertSession(_ s: SessionRecord) async throws {
        try await write("create session") { db in
            try db.cachedStatement(sql: """
                INSERT INTO sessions (id, app_id, user_id, device_id, provider_type, identity_id, refresh_digest, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [s.id, s.appId, s.userId, s.deviceId, s.providerType, s.identityId,
                                         Data(s.refreshDigest), s.createdAt, s.expiresAt])
        }
    }

    public func sessionWithUser(id: String, identities: Bool) async throws -> (SessionRecord, UserRecord)? {
        // One statement for the session and its user; identities only when asked for, and
        // then in one transaction with it.
        let session = { (c: SQLiteReadConnection) throws -> (SessionRecord, UserRecord)? in
            guard var found = try c.first(.session, [.text(id)], Self.sessionWithUser) else { return nil }
            if identities { found.1.identities = try Self.identities(c, userId: found.1.id) }
            return found
        }
        return try pointRead("read session") { c in identities ? try c.transaction { try session(c) } : try session(c) }
    }

    public func sessionState(id: String) async throws -> SessionState? {
        try pointRead("read session") { c in
            try c.first(.sessionState, [.text(id)]) { row in
                SessionState(appId: row.string(0), userId: row.string(1), userDisabled: row.bool(2))
            }
        }
    }

    private static func sessionWithUser(_ row: SQLiteReadConnection.Row) -> (SessionRecord, UserRecord) {
        let session = SessionRecord(id: row.string(0), appId: row.string(1), userId: row.string(2), deviceId: row.string(3),
                                    providerType: row.string(4), identityId: row.string(5), refreshDigest: row.bytes(6),
                                    createdAt: row.int64(7), expiresAt: row.optionalInt64(8), lastUsed: row.optionalInt64(14))
        let user = UserRecord(id: session.userId, appId: session.appId, type: row.string(9),
                              data: document(row.optionalString(10)) ?? [:], customData: document(row.optionalString(11)),
                              disabled: row.bool(12), createdAt: row.int64(13))
        return (session, user)
    }

    public func deleteSession(id: String) async throws {
        try await write("delete session") { db in
            try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id])
        }
    }

    // MARK: API keys

    public func insertAPIKey(_ k: APIKeyRecord, limit: Int) async throws -> Bool {
        try await write("create API key") { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM api_keys WHERE user_id = ?", arguments: [k.userId]) ?? 0
            guard count < limit else { return false }
            let seq = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) + 1 FROM api_keys WHERE user_id = ?",
                                       arguments: [k.userId]) ?? 1
            try db.execute(sql: """
                INSERT INTO api_keys (id, app_id, user_id, name, digest, disabled, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [k.id, k.appId, k.userId, k.name, Data(k.digest), k.disabled, k.createdAt, seq])
            return true
        }
    }

    private static func apiKey(_ row: SQLiteReadConnection.Row) -> APIKeyRecord {
        APIKeyRecord(id: row.string(0), appId: row.string(1), userId: row.string(2), name: row.string(3),
                     digest: row.bytes(4), disabled: row.bool(5), createdAt: row.int64(6))
    }

    public func apiKeys(userId: String) async throws -> [APIKeyRecord] {
        try pointRead("list API keys") { c in try c.all(.apiKeysOfUser, [.text(userId)], Self.apiKey) }
    }

    public func apiKey(id: String, userId: String) async throws -> APIKeyRecord? {
        try pointRead("read API key") { c in try c.first(.apiKeyOfUser, [.text(id), .text(userId)], Self.apiKey) }
    }

    public func apiKey(app: String, digest: [UInt8]) async throws -> APIKeyRecord? {
        try pointRead("read API key") { c in try c.first(.apiKeyByDigest, [.blob(digest), .text(app)], Self.apiKey) }
    }

    public func deleteAPIKey(id: String, userId: String) async throws -> Bool {
        try await write("delete API key") { db in
            try db.execute(sql: "DELETE FROM api_keys WHERE id = ? AND user_id = ?", arguments: [id, userId])
            let deleted = db.changesCount > 0
            if deleted { try Self.endSessions(db, ofKey: id, userId: userId) }
            return deleted
        }
    }

    public func setAPIKeyDisabled(_ disabled: Bool, id: String, userId: String) async throws -> Bool {
        try await write("change API key") { db in
            try db.execute(sql: "UPDATE api_keys SET disabled = ? WHERE id = ? AND user_id = ?", arguments: [disabled, id, userId])
            let changed = db.changesCount > 0
            if changed && disabled { try Self.endSessions(db, ofKey: id, userId: userId) }
            return changed
        }
    }

    /// Ends the sessions opened by logging in with API key `id`.
    private static func endSessions(_ db: Database, ofKey id: String, userId: String) throws {
        try db.execute(sql: "DELETE FROM sessions WHERE user_id = ? AND provider_type = ? AND identity_id = ?",
                       arguments: [userId, ProviderType.apiKey, id])
    }

    // MARK: plugin values

    public func pluginValue(app: String, key: String) async throws -> EJSON? {
        let text = try pointRead("read plugin value") { c in try c.first(.pluginValue, [.text(app), .text(key)]) { $0.string(0) } }
        return try text.map { try EJSON(parsing: $0) }
    }

    public func setPluginValue(_ value: EJSON, app: String, key: String) async throws {
        let text = value.encodedString(.canonical)
        try await write("write plugin value") { db in
            try db.execute(sql: """
                INSERT INTO plugin_values (app_id, key, value) VALUES (?, ?, ?)
                ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value
                """, arguments: [app, key, text])
        }
    }

    public func deletePluginValue(app: String, key: String) async throws {
        try await write("delete plugin value") { db in
            try db.execute(sql: "DELETE FROM plugin_values WHERE app_id = ? AND key = ?", arguments: [app, key])
        }
    }

    // MARK: housekeeping

    public func deleteAnonymousUsers(createdBefore time: Int64) async throws -> Int {
        try await write("delete old anonymous users") { db in
            // Users whose every identity is anonymous; sessions and keys go by cascade.
            try db.execute(sql: """
                DELETE FROM users WHERE created_at < ? AND id IN (SELECT user_id FROM identities WHERE provider_type = ?)
                    AND id NOT IN (SELECT user_id FROM identities WHERE provider_type <> ?)
                """, arguments: [time, ProviderType.anonymous, ProviderType.anonymous])
            return db.changesCount
        }
    }

    // MARK: dev

    public func wipe(app: String) async throws {
        try await write("wipe app") { db in
            for table in ["users", "userpass_accounts", "one_time_tokens", "sessions", "api_keys", "pending_credentials"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE app_id = ?", arguments: [app])
            }
        }
    }
}
