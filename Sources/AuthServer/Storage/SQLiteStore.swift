import AuthProtocol
import Foundation
import GRDB

/// The SQLite engine of ``AuthStore``: a file in WAL mode (a pool of readers and one writer),
/// or an in-memory database for tests. Statements are prepared once and cached.
public final class SQLiteStore: AuthStore {
    private let writer: any DatabaseWriter

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
            config.maximumReaderCount = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
            let configuration = config
            writer = try Self.retryingWhileLocked { try DatabasePool(path: path, configuration: configuration) }
        } else {
            writer = try DatabaseQueue(configuration: config)
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

    /// Reads on the caller's thread. Every read here is a point query on an indexed key (tens
    /// of microseconds in SQLite's page cache); GRDB's async read hands the work to a reader
    /// queue and back, and those two thread switches cost more than the query (a refresh ran
    /// at half the rate). Writes keep GRDB's async writer.
    private func read<T: Sendable>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        do { return try writer.read(body) } catch { throw Self.translate(error, operation) }
    }

    /// A read of one statement: it is atomic by itself, so it skips the BEGIN and COMMIT that
    /// `read` wraps around its body (two more statements per query).
    private func readOne<T: Sendable>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        do { return try writer.unsafeRead(body) } catch { throw Self.translate(error, operation) }
    }

    private func write<T: Sendable>(_ operation: String, _ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        do { return try await writer.write(body) } catch { throw Self.translate(error, operation) }
    }

    /// GRDB errors name the SQL but not the bound values (GRDB's default); we keep only the operation.
    private static func translate(_ error: any Error, _ operation: String) -> any Error {
        if let e = error as? DatabaseError {
            return e.resultCode == .SQLITE_CONSTRAINT ? StoreError.conflict(operation) : StoreError.unavailable(operation)
        }
        return error
    }

    private static func json(_ doc: EJSONDocument) -> String { EJSON.document(doc).encodedString() }

    private static func document(_ text: String?) -> EJSONDocument? {
        guard let text, case .document(let d)? = try? EJSON(parsing: text) else { return nil }
        return d
    }

    // MARK: signing keys

    public func signingKey(app: String, algorithm: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let fresh = Data(make())
        return try await write("read signing key") { db in
            // INSERT OR IGNORE keeps the first key when two instances start together.
            try db.execute(sql: "INSERT OR IGNORE INTO signing_keys (app_id, algorithm, material) VALUES (?, ?, ?)",
                           arguments: [app, algorithm, fresh])
            let data = try Data.fetchOne(db, sql: "SELECT material FROM signing_keys WHERE app_id = ? AND algorithm = ?",
                                         arguments: [app, algorithm])
            return Array(data ?? fresh)
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
            INSERT INTO identities (app_id, provider_type, external_id, user_id, provider_id, data, position)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [app, identity.providerType, identity.externalId, userId, identity.providerId,
                                     json(identity.data), position])
    }

    public func user(id: String, app: String) async throws -> UserRecord? {
        try read("read user") { db in try Self.fetchUser(db, id: id, app: app) }
    }

    private static func fetchUser(_ db: Database, id: String, app: String) throws -> UserRecord? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE id = ? AND app_id = ?"),
                                         arguments: [id, app]) else { return nil }
        var user = UserRecord(id: row["id"], appId: row["app_id"], type: row["type"], data: document(row["data"]) ?? [:],
                              customData: document(row["custom_data"]), disabled: row["disabled"],
                              createdAt: row["created_at"])
        user.identities = try fetchIdentities(db, userId: id)
        return user
    }

    private static func fetchIdentities(_ db: Database, userId: String) throws -> [IdentityRecord] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT provider_type, external_id, provider_id, data FROM identities WHERE user_id = ? ORDER BY position
            """), arguments: [userId]).map {
            IdentityRecord(externalId: $0["external_id"], providerType: $0["provider_type"], providerId: $0["provider_id"],
                           data: document($0["data"]) ?? [:])
        }
    }

    public func userId(app: String, providerType: String, externalId: String) async throws -> String? {
        try readOne("find identity") { db in
            try String.fetchOne(db.cachedStatement(sql: """
                SELECT user_id FROM identities WHERE app_id = ? AND provider_type = ? AND external_id = ?
                """), arguments: [app, providerType, externalId])
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
        try readOne("read account") { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM userpass_accounts WHERE app_id = ? AND email = ?"),
                             arguments: [app, email]).map {
                UserpassAccount(appId: $0["app_id"], email: $0["email"], passwordHash: $0["password_hash"],
                                identityId: $0["identity_id"], confirmed: $0["confirmed"], createdAt: $0["created_at"])
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

    public func insertToken(_ t: OneTimeToken) async throws {
        try await write("store token") { db in
            try db.execute(sql: "DELETE FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ?",
                           arguments: [t.appId, t.kind.rawValue, t.email])
            try db.execute(sql: """
                INSERT INTO one_time_tokens (id, app_id, kind, email, digest, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [t.id, t.appId, t.kind.rawValue, t.email, Data(t.digest), t.expiresAt])
        }
    }

    public func consumeToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String? {
        try await write("use token") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT email, digest, expires_at FROM one_time_tokens WHERE id = ? AND app_id = ? AND kind = ?
                """, arguments: [id, app, kind.rawValue]) else { return nil }
            let stored: Data = row["digest"]
            guard Secrets.constantTimeEqual(Array(stored), digest) else { return nil }
            try db.execute(sql: "DELETE FROM one_time_tokens WHERE id = ?", arguments: [id])
            let expires: Int64 = row["expires_at"]
            return expires > now ? row["email"] as String : nil
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
        let body = { (db: Database) throws -> (SessionRecord, UserRecord)? in
            // One statement for the session and its user; identities only when asked for.
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT s.id, s.app_id, s.user_id, s.device_id, s.provider_type, s.identity_id, s.refresh_digest,
                       s.created_at, s.expires_at, u.type, u.data, u.custom_data, u.disabled, u.created_at AS user_created_at
                FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id WHERE s.id = ?
                """), arguments: [id])
            else { return nil }
            let digest: Data = row["refresh_digest"]
            let session = SessionRecord(id: row["id"], appId: row["app_id"], userId: row["user_id"], deviceId: row["device_id"],
                                        providerType: row["provider_type"], identityId: row["identity_id"],
                                        refreshDigest: Array(digest), createdAt: row["created_at"], expiresAt: row["expires_at"])
            var user = UserRecord(id: session.userId, appId: session.appId, type: row["type"],
                                  data: Self.document(row["data"]) ?? [:], customData: Self.document(row["custom_data"]),
                                  disabled: row["disabled"], createdAt: row["user_created_at"])
            if identities { user.identities = try Self.fetchIdentities(db, userId: user.id) }
            return (session, user)
        }
        return identities ? try read("read session", body) : try readOne("read session", body)
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

    private static func apiKey(_ row: Row) -> APIKeyRecord {
        let digest: Data = row["digest"]
        return APIKeyRecord(id: row["id"], appId: row["app_id"], userId: row["user_id"], name: row["name"],
                            digest: Array(digest), disabled: row["disabled"], createdAt: row["created_at"])
    }

    public func apiKeys(userId: String) async throws -> [APIKeyRecord] {
        try readOne("list API keys") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM api_keys WHERE user_id = ? ORDER BY seq", arguments: [userId]).map(Self.apiKey)
        }
    }

    public func apiKey(id: String, userId: String) async throws -> APIKeyRecord? {
        try readOne("read API key") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM api_keys WHERE id = ? AND user_id = ?", arguments: [id, userId]).map(Self.apiKey)
        }
    }

    public func apiKey(app: String, digest: [UInt8]) async throws -> APIKeyRecord? {
        try readOne("read API key") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM api_keys WHERE digest = ? AND app_id = ?",
                             arguments: [Data(digest), app]).map(Self.apiKey)
        }
    }

    public func deleteAPIKey(id: String, userId: String) async throws -> Bool {
        try await write("delete API key") { db in
            try db.execute(sql: "DELETE FROM api_keys WHERE id = ? AND user_id = ?", arguments: [id, userId])
            return db.changesCount > 0
        }
    }

    public func setAPIKeyDisabled(_ disabled: Bool, id: String, userId: String) async throws -> Bool {
        try await write("change API key") { db in
            try db.execute(sql: "UPDATE api_keys SET disabled = ? WHERE id = ? AND user_id = ?", arguments: [disabled, id, userId])
            return db.changesCount > 0
        }
    }

    // MARK: plugin values

    public func pluginValue(app: String, key: String) async throws -> EJSON? {
        let text = try readOne("read plugin value") { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM plugin_values WHERE app_id = ? AND key = ?"),
                                arguments: [app, key])
        }
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

    // MARK: dev

    public func wipe(app: String) async throws {
        try await write("wipe app") { db in
            for table in ["users", "userpass_accounts", "one_time_tokens", "sessions", "api_keys"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE app_id = ?", arguments: [app])
            }
        }
    }
}
