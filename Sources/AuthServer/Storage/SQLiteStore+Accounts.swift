import AuthProtocol
import Foundation
import GRDB

/// Accounts across providers in SQLite: verified emails, pending credentials, and the
/// sessions a user sees and ends (identity-providers.md sections 5 and 6).
extension SQLiteStore {
    public func setIdentityEmail(_ email: String?, app: String, providerType: String, externalId: String) async throws {
        try await write("update identity email") { db in
            try db.execute(sql: "UPDATE identities SET email = ? WHERE app_id = ? AND provider_type = ? AND external_id = ?",
                           arguments: [email, app, providerType, externalId])
        }
    }

    public func emailHolder(app: String, email: String, accounts: Bool) async throws -> EmailHolder? {
        try await read("find email") { db in
            // The oldest user first: with oneAccountPerEmail turned on late, that is the account
            // the email was first used for.
            if let userId = try String.fetchOne(db, sql: """
                SELECT i.user_id FROM identities i JOIN users u ON u.id = i.user_id
                WHERE i.app_id = ? AND i.email = ? ORDER BY u.created_at, u.id LIMIT 1
                """, arguments: [app, email]) {
                var providers: [String] = []
                for type in try String.fetchAll(db, sql: "SELECT provider_type FROM identities WHERE user_id = ? ORDER BY position",
                                                arguments: [userId])
                where type != ProviderType.anonymous && !providers.contains(type) {
                    providers.append(type)
                }
                return EmailHolder(userId: userId, providers: providers)
            }
            guard accounts else { return nil }
            // A confirmed account whose identity no user holds yet (it logs in for the first time).
            let waiting = try Bool.fetchOne(db, sql: """
                SELECT 1 FROM userpass_accounts a WHERE a.app_id = ? AND lower(a.email) = ? AND a.confirmed = 1
                    AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.app_id = a.app_id AND i.provider_type = ?
                                    AND i.external_id = a.identity_id)
                """, arguments: [app, email, ProviderType.userpass]) ?? false
            return waiting ? EmailHolder(userId: nil, providers: [ProviderType.userpass]) : nil
        }
    }

    // MARK: pending credentials

    public func insertPendingCredential(_ p: PendingCredential) async throws {
        try await write("store pending credential") { db in
            try db.execute(sql: """
                INSERT INTO pending_credentials (id, app_id, digest, email, provider_type, external_id, provider_id, data, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [p.id, p.appId, Data(p.digest), p.email, p.identity.providerType, p.identity.externalId,
                                 p.identity.providerId, Self.json(p.identity.data), p.expiresAt])
        }
    }

    public func pendingCredential(app: String, id: String) async throws -> PendingCredential? {
        try await read("read pending credential") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT digest, email, provider_type, external_id, provider_id, data, expires_at
                FROM pending_credentials WHERE id = ? AND app_id = ?
                """, arguments: [id, app]) else { return nil }
            let digest: Data = row["digest"]
            let email: String = row["email"]
            let identity = IdentityRecord(externalId: row["external_id"], providerType: row["provider_type"],
                                          providerId: row["provider_id"], data: Self.document(row["data"]) ?? [:], email: email)
            return PendingCredential(id: id, appId: app, digest: Array(digest), email: email, identity: identity,
                                     expiresAt: row["expires_at"])
        }
    }

    public func deletePendingCredential(app: String, id: String) async throws -> Bool {
        try await write("use pending credential") { db in
            try db.execute(sql: "DELETE FROM pending_credentials WHERE id = ? AND app_id = ?", arguments: [id, app])
            return db.changesCount > 0
        }
    }

    public func deleteExpiredPendingCredentials(at time: Int64) async throws -> Int {
        try await write("delete expired pending credentials") { db in
            try db.execute(sql: "DELETE FROM pending_credentials WHERE expires_at <= ?", arguments: [time])
            return db.changesCount
        }
    }

    // MARK: a user's sessions

    public func sessions(userId: String, app: String) async throws -> [SessionRecord] {
        try await read("list sessions") { db in
            try Row.fetchAll(db, sql: """
                SELECT id, device_id, provider_type, identity_id, created_at, expires_at, last_used
                FROM sessions WHERE user_id = ? AND app_id = ? ORDER BY created_at, id
                """, arguments: [userId, app]).map { row in
                SessionRecord(id: row["id"], appId: app, userId: userId, deviceId: row["device_id"],
                              providerType: row["provider_type"], identityId: row["identity_id"], refreshDigest: [],
                              createdAt: row["created_at"], expiresAt: row["expires_at"], lastUsed: row["last_used"])
            }
        }
    }

    public func deleteSession(id: String, userId: String, app: String) async throws -> Bool {
        try await write("end session") { db in
            try db.execute(sql: "DELETE FROM sessions WHERE id = ? AND user_id = ? AND app_id = ?", arguments: [id, userId, app])
            return db.changesCount > 0
        }
    }

    public func deleteSessions(userId: String, app: String, except keep: String) async throws -> Int {
        try await write("end sessions") { db in
            try db.execute(sql: "DELETE FROM sessions WHERE user_id = ? AND app_id = ? AND id != ?", arguments: [userId, app, keep])
            return db.changesCount
        }
    }

    public func touchSession(id: String, at time: Int64) async throws {
        try await write("mark session used") { db in
            try db.execute(sql: "UPDATE sessions SET last_used = ? WHERE id = ?", arguments: [time, id])
        }
    }
}
