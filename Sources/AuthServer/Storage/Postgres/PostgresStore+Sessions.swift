import AuthProtocol
import PostgresNIO

/// Sessions, API keys, plugin values and housekeeping in PostgreSQL.
extension PostgresStore {
    // MARK: sessions

    static func session(_ row: PostgresRandomAccessRow) throws -> SessionRecord {
        SessionRecord(id: try row.text("id"), appId: try row.text("app_id"), userId: try row.text("user_id"),
                      deviceId: try row.text("device_id"), providerType: try row.text("provider_type"),
                      identityId: try row.text("identity_id"), refreshDigest: try row.bytes("refresh_digest"),
                      createdAt: try row.int64("created_at"), expiresAt: try row.optionalInt64("expires_at"),
                      lastUsed: try row.optionalInt64("last_used"))
    }

    public func insertSession(_ s: SessionRecord) async throws {
        try await run("create session", """
            INSERT INTO sessions (id, app_id, user_id, device_id, provider_type, identity_id, refresh_digest, created_at, expires_at)
            VALUES (\(s.id), \(s.appId), \(s.userId), \(s.deviceId), \(s.providerType), \(s.identityId), \(s.refreshDigest.bytea),
                    \(s.createdAt), \(s.expiresAt))
            """)
    }

    public func sessionWithUser(id: String, identities: Bool) async throws -> (SessionRecord, UserRecord)? {
        // One statement for the session and its user (a refresh's read); the identities only
        // when asked for.
        guard var found = try await select("read session", """
            SELECT s.id, s.app_id, s.user_id, s.device_id, s.provider_type, s.identity_id, s.refresh_digest, s.created_at,
                   s.expires_at, s.last_used, u.type, u.data, u.custom_data, u.disabled, u.created_at AS user_created_at
            FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id WHERE s.id = \(id)
            """, { row in
            let session = try Self.session(row)
            let user = UserRecord(id: session.userId, appId: session.appId, type: try row.text("type"),
                                  data: Self.document(try row.optionalText("data")) ?? [:],
                                  customData: Self.document(try row.optionalText("custom_data")),
                                  disabled: try row.bool("disabled"), createdAt: try row.int64("user_created_at"))
            return (session, user)
        }).first else { return nil }
        if identities {
            found.1.identities = try await select("read session", """
                SELECT provider_type, external_id, provider_id, data, email FROM identities WHERE user_id = \(found.1.id) ORDER BY position
                """, Self.identity)
        }
        return found
    }

    public func sessionState(id: String) async throws -> SessionState? {
        try await select("read session", """
            SELECT s.app_id, s.user_id, u.disabled FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id
            WHERE s.id = \(id)
            """) { SessionState(appId: try $0.text("app_id"), userId: try $0.text("user_id"), userDisabled: try $0.bool("disabled")) }.first
    }

    public func deleteSession(id: String) async throws {
        try await run("delete session", "DELETE FROM sessions WHERE id = \(id)")
    }

    public func sessions(userId: String, app: String) async throws -> [SessionRecord] {
        try await select("list sessions", """
            SELECT id, app_id, user_id, device_id, provider_type, identity_id, refresh_digest, created_at, expires_at, last_used
            FROM sessions WHERE user_id = \(userId) AND app_id = \(app) ORDER BY created_at, id
            """) { row in
            var session = try Self.session(row)
            session.refreshDigest = []  // a list never hands out the digests
            return session
        }
    }

    public func deleteSession(id: String, userId: String, app: String) async throws -> Bool {
        try await rows("end session", "DELETE FROM sessions WHERE id = \(id) AND user_id = \(userId) AND app_id = \(app) RETURNING 1").count > 0
    }

    public func deleteSessions(userId: String, app: String, except keep: String) async throws -> Int {
        try await rows("end sessions", "DELETE FROM sessions WHERE user_id = \(userId) AND app_id = \(app) AND id <> \(keep) RETURNING 1").count
    }

    public func touchSession(id: String, at time: Int64) async throws {
        try await run("mark session used", "UPDATE sessions SET last_used = \(time) WHERE id = \(id)")
    }

    // MARK: API keys

    static func apiKey(_ row: PostgresRandomAccessRow) throws -> APIKeyRecord {
        APIKeyRecord(id: try row.text("id"), appId: try row.text("app_id"), userId: try row.text("user_id"), name: try row.text("name"),
                     digest: try row.bytes("digest"), disabled: try row.bool("disabled"), createdAt: try row.int64("created_at"))
    }

    public func insertAPIKey(_ k: APIKeyRecord, limit: Int) async throws -> Bool {
        try await transaction("create API key") { tx in
            // The user's row, locked: two creations at once cannot both pass the limit.
            _ = try await tx.rows("SELECT id FROM users WHERE id = \(k.userId) FOR UPDATE")
            let rows = try await tx.rows("""
                SELECT COUNT(*) AS count, COALESCE(MAX(seq), 0) + 1 AS next FROM api_keys WHERE user_id = \(k.userId)
                """)
            guard try rows.first?.int64("count") ?? 0 < Int64(limit) else { return false }
            let seq = try rows.first?.int64("next") ?? 1
            try await tx.run("""
                INSERT INTO api_keys (id, app_id, user_id, name, digest, disabled, created_at, seq)
                VALUES (\(k.id), \(k.appId), \(k.userId), \(k.name), \(k.digest.bytea), \(k.disabled), \(k.createdAt), \(seq))
                """)
            return true
        }
    }

    private static let apiKeyColumns = "SELECT id, app_id, user_id, name, digest, disabled, created_at FROM api_keys"

    public func apiKeys(userId: String) async throws -> [APIKeyRecord] {
        try await select("list API keys", PostgresQuery(unsafeSQL: Self.apiKeyColumns + " WHERE user_id = $1 ORDER BY seq",
                                                       binds: Self.binds(userId)), Self.apiKey)
    }

    public func apiKey(id: String, userId: String) async throws -> APIKeyRecord? {
        try await select("read API key", PostgresQuery(unsafeSQL: Self.apiKeyColumns + " WHERE id = $1 AND user_id = $2",
                                                      binds: Self.binds(id, userId)), Self.apiKey).first
    }

    public func apiKey(app: String, digest: [UInt8]) async throws -> APIKeyRecord? {
        var binds = PostgresBindings()
        binds.append(digest.bytea)
        binds.append(app)
        return try await select("read API key", PostgresQuery(unsafeSQL: Self.apiKeyColumns + " WHERE digest = $1 AND app_id = $2",
                                                             binds: binds), Self.apiKey).first
    }

    private static func binds(_ values: String...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values { binds.append(value) }
        return binds
    }

    public func deleteAPIKey(id: String, userId: String) async throws -> Bool {
        try await transaction("delete API key") { tx in
            guard try await tx.count("DELETE FROM api_keys WHERE id = \(id) AND user_id = \(userId) RETURNING 1") > 0 else { return false }
            try await Self.endSessions(tx, ofKey: id, userId: userId)
            return true
        }
    }

    public func setAPIKeyDisabled(_ disabled: Bool, id: String, userId: String) async throws -> Bool {
        try await transaction("change API key") { tx in
            guard try await tx.count("UPDATE api_keys SET disabled = \(disabled) WHERE id = \(id) AND user_id = \(userId) RETURNING 1") > 0
            else { return false }
            if disabled { try await Self.endSessions(tx, ofKey: id, userId: userId) }
            return true
        }
    }

    /// Ends the sessions opened by logging in with API key `id`.
    private static func endSessions(_ tx: PostgresTransaction, ofKey id: String, userId: String) async throws {
        try await tx.run("DELETE FROM sessions WHERE user_id = \(userId) AND provider_type = \(ProviderType.apiKey) AND identity_id = \(id)")
    }

    // MARK: plugin values

    public func pluginValue(app: String, key: String) async throws -> EJSON? {
        guard let text = try await select("read plugin value", "SELECT value FROM plugin_values WHERE app_id = \(app) AND key = \(key)", {
            try $0.text("value")
        }).first else { return nil }
        return try EJSON(parsing: text)
    }

    public func setPluginValue(_ value: EJSON, app: String, key: String) async throws {
        try await run("write plugin value", """
            INSERT INTO plugin_values (app_id, key, value) VALUES (\(app), \(key), \(value.encodedString(.canonical)))
            ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value
            """)
    }

    public func deletePluginValue(app: String, key: String) async throws {
        try await run("delete plugin value", "DELETE FROM plugin_values WHERE app_id = \(app) AND key = \(key)")
    }

    // MARK: housekeeping

    public func deleteAnonymousUsers(createdBefore time: Int64) async throws -> Int {
        // Users whose every identity is anonymous; sessions and keys go by cascade.
        try await rows("delete old anonymous users", """
            DELETE FROM users WHERE created_at < \(time)
                AND id IN (SELECT user_id FROM identities WHERE provider_type = \(ProviderType.anonymous))
                AND id NOT IN (SELECT user_id FROM identities WHERE provider_type <> \(ProviderType.anonymous))
            RETURNING 1
            """).count
    }

    public func wipe(app: String) async throws {
        try await transaction("wipe app") { tx in
            for table in ["users", "userpass_accounts", "one_time_tokens", "sessions", "api_keys", "pending_credentials"] {
                try await tx.run(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE app_id = $1", binds: Self.binds(app)))
            }
        }
    }
}
