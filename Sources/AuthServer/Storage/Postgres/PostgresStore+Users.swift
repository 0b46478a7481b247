import AuthProtocol
import PostgresNIO

/// Signing keys, users and identities in PostgreSQL.
extension PostgresStore {
    // MARK: signing keys

    public func existingSigningKey(app: String, algorithm: String) async throws -> [UInt8]? {
        try await select("read signing key", "SELECT material FROM signing_keys WHERE app_id = \(app) AND algorithm = \(algorithm)") {
            try $0.bytes("material")
        }.first
    }

    public func signingKey(app: String, algorithm: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        if let existing = try await existingSigningKey(app: app, algorithm: algorithm) { return existing }
        // The first instance's key wins when two start together.
        try await run("store signing key", """
            INSERT INTO signing_keys (app_id, algorithm, material) VALUES (\(app), \(algorithm), \(make().bytea))
            ON CONFLICT DO NOTHING
            """)
        guard let key = try await existingSigningKey(app: app, algorithm: algorithm) else { throw StoreError.unavailable("read signing key") }
        return key
    }

    // MARK: users

    static func user(_ row: PostgresRandomAccessRow) throws -> UserRecord {
        UserRecord(id: try row.text("id"), appId: try row.text("app_id"), type: try row.text("type"),
                   data: document(try row.optionalText("data")) ?? [:], customData: document(try row.optionalText("custom_data")),
                   disabled: try row.bool("disabled"), createdAt: try row.int64("created_at"))
    }

    static func identity(_ row: PostgresRandomAccessRow) throws -> IdentityRecord {
        IdentityRecord(externalId: try row.text("external_id"), providerType: try row.text("provider_type"),
                       providerId: try row.text("provider_id"), data: document(try row.optionalText("data")) ?? [:],
                       email: try row.optionalText("email"))
    }

    private static func insertIdentity(_ tx: PostgresTransaction, _ i: IdentityRecord, userId: String, app: String, position: Int) async throws {
        try await tx.run("""
            INSERT INTO identities (app_id, provider_type, external_id, user_id, provider_id, data, position, email)
            VALUES (\(app), \(i.providerType), \(i.externalId), \(userId), \(i.providerId), \(json(i.data)), \(position), \(i.email))
            """)
    }

    public func insertUser(_ user: UserRecord) async throws {
        try await transaction("create user") { tx in
            try await tx.run("""
                INSERT INTO users (id, app_id, type, data, custom_data, disabled, created_at)
                VALUES (\(user.id), \(user.appId), \(user.type), \(Self.json(user.data)), \(user.customData.map(Self.json)),
                        \(user.disabled), \(user.createdAt))
                """)
            for (position, identity) in user.identities.enumerated() {
                try await Self.insertIdentity(tx, identity, userId: user.id, app: user.appId, position: position)
            }
        }
    }

    public func user(id: String, app: String) async throws -> UserRecord? {
        // One statement: the user and its identities (a LEFT JOIN keeps a user without any).
        let rows = try await rows("read user", """
            SELECT u.id, u.app_id, u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at,
                   i.provider_type, i.external_id, i.provider_id, i.data, i.email
            FROM users u LEFT JOIN identities i ON i.user_id = u.id
            WHERE u.id = \(id) AND u.app_id = \(app) ORDER BY i.position
            """)
        guard let first = rows.first else { return nil }
        do {
            var user = UserRecord(id: try first.text("id"), appId: try first.text("app_id"), type: try first.text("type"),
                                  data: Self.document(try first.optionalText("user_data")) ?? [:],
                                  customData: Self.document(try first.optionalText("custom_data")),
                                  disabled: try first.bool("disabled"), createdAt: try first.int64("created_at"))
            for row in rows where try row.optionalText("external_id") != nil {
                user.identities.append(try Self.identity(row))
            }
            return user
        } catch {
            throw StoreError.unavailable("read user")
        }
    }

    public func userId(app: String, providerType: String, externalId: String) async throws -> String? {
        try await select("find identity", """
            SELECT user_id FROM identities WHERE app_id = \(app) AND provider_type = \(providerType) AND external_id = \(externalId)
            """) { try $0.text("user_id") }.first
    }

    public func user(app: String, providerType: String, externalId: String) async throws -> UserRecord? {
        guard let id = try await userId(app: app, providerType: providerType, externalId: externalId) else { return nil }
        return try await user(id: id, app: app)
    }

    public func addIdentity(_ identity: IdentityRecord, toUser userId: String, app: String, profile: EJSONDocument) async throws {
        try await transaction("link identity") { tx in
            let next = try await tx.rows("SELECT COALESCE(MAX(position), -1) + 1 AS next FROM identities WHERE user_id = \(userId)")
            let position = Int(try next.first?.int64("next") ?? 0)
            try await Self.insertIdentity(tx, identity, userId: userId, app: app, position: position)
            try await tx.run("UPDATE users SET data = \(Self.json(profile)) WHERE id = \(userId)")
        }
    }

    public func removeIdentity(app: String, userId: String, providerType: String, externalId: String) async throws -> IdentityRemoval {
        try await transaction("unlink identity") { tx in
            // The user's row, locked, so two unlinks at once cannot remove its last two identities.
            _ = try await tx.rows("SELECT id FROM users WHERE id = \(userId) FOR UPDATE")
            let rows = try await tx.rows("""
                SELECT COUNT(*) AS total,
                       COUNT(*) FILTER (WHERE provider_type = \(providerType) AND external_id = \(externalId)) AS held
                FROM identities WHERE user_id = \(userId) AND app_id = \(app)
                """)
            let total = try rows.first?.int64("total") ?? 0, held = try rows.first?.int64("held") ?? 0
            guard held == 1 else { return .notFound }
            guard total > 1 else { return .lastIdentity }
            if providerType == ProviderType.userpass {
                try await tx.run("DELETE FROM userpass_accounts WHERE app_id = \(app) AND identity_id = \(externalId)")
            }
            try await tx.run("""
                DELETE FROM identities WHERE app_id = \(app) AND provider_type = \(providerType) AND external_id = \(externalId)
                """)
            return .removed
        }
    }

    public func setIdentityEmail(_ email: String?, app: String, providerType: String, externalId: String) async throws {
        try await run("update identity email", """
            UPDATE identities SET email = \(email) WHERE app_id = \(app) AND provider_type = \(providerType) AND external_id = \(externalId)
            """)
    }

    public func setCustomData(_ data: EJSONDocument?, userId: String, app: String) async throws -> Bool {
        try await rows("set custom data", """
            UPDATE users SET custom_data = \(data.map(Self.json)) WHERE id = \(userId) AND app_id = \(app) RETURNING 1
            """).count > 0
    }

    public func deleteUser(id: String, app: String) async throws {
        try await transaction("delete user") { tx in
            try await tx.run("""
                DELETE FROM userpass_accounts WHERE app_id = \(app) AND identity_id IN
                    (SELECT external_id FROM identities WHERE user_id = \(id) AND provider_type = \(ProviderType.userpass))
                """)
            try await tx.run("DELETE FROM users WHERE id = \(id) AND app_id = \(app)")
        }
    }
}
