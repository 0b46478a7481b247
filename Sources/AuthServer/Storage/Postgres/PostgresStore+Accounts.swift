import AuthProtocol
import PostgresNIO

/// Email/password accounts, one-time tokens, verified emails and pending credentials in PostgreSQL.
extension PostgresStore {
    // MARK: email/password

    public func userpassAccount(app: String, email: String) async throws -> UserpassAccount? {
        try await select("read account", """
            SELECT app_id, email, password_hash, identity_id, confirmed, created_at
            FROM userpass_accounts WHERE app_id = \(app) AND email = \(email)
            """) { row in
            UserpassAccount(appId: try row.text("app_id"), email: try row.text("email"), passwordHash: try row.text("password_hash"),
                            identityId: try row.text("identity_id"), confirmed: try row.bool("confirmed"),
                            createdAt: try row.int64("created_at"))
        }.first
    }

    public func insertUserpassAccount(_ a: UserpassAccount) async throws {
        try await run("register", """
            INSERT INTO userpass_accounts (app_id, email, password_hash, identity_id, confirmed, created_at)
            VALUES (\(a.appId), \(a.email), \(a.passwordHash), \(a.identityId), \(a.confirmed), \(a.createdAt))
            """)
    }

    public func deleteUserpassAccount(app: String, email: String) async throws {
        try await run("delete account", "DELETE FROM userpass_accounts WHERE app_id = \(app) AND email = \(email)")
    }

    public func confirmUserpassAccount(app: String, email: String) async throws {
        try await run("confirm account", "UPDATE userpass_accounts SET confirmed = true WHERE app_id = \(app) AND email = \(email)")
    }

    public func setPassword(app: String, email: String, hash: String) async throws {
        try await run("set password", "UPDATE userpass_accounts SET password_hash = \(hash) WHERE app_id = \(app) AND email = \(email)")
    }

    public func resetPassword(app: String, email: String, hash: String) async throws {
        try await setPassword(app: app, email: email, hash: hash, keepSession: nil, operation: "reset password")
    }

    public func changePassword(app: String, email: String, hash: String, keepSession: String) async throws {
        try await setPassword(app: app, email: email, hash: hash, keepSession: keepSession, operation: "change password")
    }

    /// A new password, and every session of the account's user ended but `keepSession`.
    private func setPassword(app: String, email: String, hash: String, keepSession: String?, operation: String) async throws {
        try await transaction(operation) { tx in
            try await tx.run("UPDATE userpass_accounts SET password_hash = \(hash) WHERE app_id = \(app) AND email = \(email)")
            try await tx.run("""
                DELETE FROM sessions WHERE app_id = \(app) AND id IS DISTINCT FROM \(keepSession) AND user_id IN
                    (SELECT i.user_id FROM identities i JOIN userpass_accounts a
                        ON i.app_id = a.app_id AND i.provider_type = \(ProviderType.userpass) AND i.external_id = a.identity_id
                     WHERE a.app_id = \(app) AND a.email = \(email))
                """)
        }
    }

    // MARK: one-time tokens

    public func insertToken(_ t: OneTimeToken, now: Int64, keep: Int) async throws {
        try await transaction("store token") { tx in
            // Earlier tokens stay valid until they expire or one of them is used; only the
            // expired ones, and the oldest past `keep`, go.
            try await tx.run("""
                DELETE FROM one_time_tokens WHERE app_id = \(t.appId) AND kind = \(t.kind.rawValue) AND email = \(t.email)
                    AND (expires_at <= \(now) OR id IN
                        (SELECT id FROM one_time_tokens WHERE app_id = \(t.appId) AND kind = \(t.kind.rawValue) AND email = \(t.email)
                         ORDER BY expires_at DESC, id DESC OFFSET \(max(0, keep - 1))))
                """)
            try await tx.run("""
                INSERT INTO one_time_tokens (id, app_id, kind, email, digest, expires_at)
                VALUES (\(t.id), \(t.appId), \(t.kind.rawValue), \(t.email), \(t.digest.bytea), \(t.expiresAt))
                """)
        }
    }

    public func discardToken(app: String, id: String) async throws {
        try await run("discard token", "DELETE FROM one_time_tokens WHERE id = \(id) AND app_id = \(app)")
    }

    public func consumeToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String? {
        try await transaction("use token") { tx in
            // Locked, so two uses at once cannot both succeed.
            guard let row = try await tx.rows("""
                SELECT email, digest, expires_at FROM one_time_tokens WHERE id = \(id) AND app_id = \(app) AND kind = \(kind.rawValue)
                FOR UPDATE
                """).first else { return nil }
            guard Secrets.constantTimeEqual(try row.bytes("digest"), digest) else { return nil }
            let email = try row.text("email")
            guard try row.int64("expires_at") > now else {
                try await tx.run("DELETE FROM one_time_tokens WHERE id = \(id)")
                return nil
            }
            // Used: it and every other token of its kind for that email are spent.
            try await tx.run("DELETE FROM one_time_tokens WHERE app_id = \(app) AND kind = \(kind.rawValue) AND email = \(email)")
            return email
        }
    }

    // MARK: verified emails

    public func emailHolder(app: String, email: String, accounts: Bool) async throws -> EmailHolder? {
        // The oldest user first: with oneAccountPerEmail turned on late, that is the account
        // the email was first used for.
        if let userId = try await select("find email", """
            SELECT i.user_id FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.app_id = \(app) AND i.email = \(email) ORDER BY u.created_at, u.id LIMIT 1
            """, { try $0.text("user_id") }).first {
            var providers: [String] = []
            for type in try await select("find email", """
                SELECT provider_type FROM identities WHERE user_id = \(userId) ORDER BY position
                """, { try $0.text("provider_type") }) where type != ProviderType.anonymous && !providers.contains(type) {
                providers.append(type)
            }
            return EmailHolder(userId: userId, providers: providers)
        }
        guard accounts else { return nil }
        // A confirmed account whose identity no user holds yet (it logs in for the first time).
        let waiting = try await rows("find email", """
            SELECT 1 FROM userpass_accounts a WHERE a.app_id = \(app) AND lower(a.email) = \(email) AND a.confirmed
                AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.app_id = a.app_id AND i.provider_type = \(ProviderType.userpass)
                                AND i.external_id = a.identity_id)
            LIMIT 1
            """)
        return waiting.isEmpty ? nil : EmailHolder(userId: nil, providers: [ProviderType.userpass])
    }

    // MARK: pending credentials

    public func insertPendingCredential(_ p: PendingCredential) async throws {
        try await run("store pending credential", """
            INSERT INTO pending_credentials (id, app_id, digest, email, provider_type, external_id, provider_id, data, expires_at)
            VALUES (\(p.id), \(p.appId), \(p.digest.bytea), \(p.email), \(p.identity.providerType), \(p.identity.externalId),
                    \(p.identity.providerId), \(Self.json(p.identity.data)), \(p.expiresAt))
            """)
    }

    public func pendingCredential(app: String, id: String) async throws -> PendingCredential? {
        try await select("read pending credential", """
            SELECT digest, email, provider_type, external_id, provider_id, data, expires_at
            FROM pending_credentials WHERE id = \(id) AND app_id = \(app)
            """) { row in
            let email = try row.text("email")
            let identity = IdentityRecord(externalId: try row.text("external_id"), providerType: try row.text("provider_type"),
                                          providerId: try row.text("provider_id"), data: Self.document(try row.text("data")) ?? [:],
                                          email: email)
            return PendingCredential(id: id, appId: app, digest: try row.bytes("digest"), email: email, identity: identity,
                                     expiresAt: try row.int64("expires_at"))
        }.first
    }

    public func deletePendingCredential(app: String, id: String) async throws -> Bool {
        try await rows("use pending credential", "DELETE FROM pending_credentials WHERE id = \(id) AND app_id = \(app) RETURNING 1").count > 0
    }

    public func deleteExpiredPendingCredentials(at time: Int64) async throws -> Int {
        try await rows("delete expired pending credentials", "DELETE FROM pending_credentials WHERE expires_at <= \(time) RETURNING 1").count
    }
}
