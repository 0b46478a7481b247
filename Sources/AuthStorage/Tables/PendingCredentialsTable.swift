// SPDX-License-Identifier: Apache-2.0
/// `pending_credentials`: identities a login proved but did not attach (one account per email).
package enum PendingCredentialsTable {
    package static let insert: SQL = """
        INSERT INTO pending_credentials (id, app_id, digest, email, provider_type, external_id, provider_id, data, expires_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ p: PendingCredential) -> [SQLValue] {
        [
            .text(p.id), .text(p.appId), .blob(p.digest), .text(p.email), .text(p.identity.providerType),
            .text(p.identity.externalId), .text(p.identity.providerId), p.identity.data.sqlValue, .integer(p.expiresAt),
        ]
    }

    package static let select: SQL = """
        SELECT id, app_id, digest, email, provider_type, external_id, provider_id, data, expires_at
        FROM pending_credentials WHERE id = ? AND app_id = ?
        """

    package static func credential<Row: SQLRow>(_ row: Row) throws -> PendingCredential {
        let email = try row.text("email")
        let identity = IdentityRecord(
            externalId: try row.text("external_id"), providerType: try row.text("provider_type"),
            providerId: try row.text("provider_id"), data: try row.document("data") ?? [:], email: email)
        return PendingCredential(
            id: try row.text("id"), appId: try row.text("app_id"), digest: try row.bytes("digest"),
            email: email, identity: identity, expiresAt: try row.int64("expires_at"))
    }

    package static let delete: SQL = "DELETE FROM pending_credentials WHERE id = ? AND app_id = ? RETURNING 1"
    package static let deleteExpired: SQL = "DELETE FROM pending_credentials WHERE expires_at <= ? RETURNING 1"
}

// MARK: the record

/// An identity a login proved but did not attach, because its verified email belongs to
/// another user (docs/protocol/identity-providers.md section 5). Only the digest of its token is stored.
public struct PendingCredential: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var digest: [UInt8]
    /// The verified email (lowercased) the conflict was about.
    public var email: String
    public var identity: IdentityRecord
    public var expiresAt: Int64

    /// The memberwise initialiser, for the whole package.
    package init(id: String, appId: String, digest: [UInt8], email: String, identity: IdentityRecord, expiresAt: Int64) {
        self.id = id
        self.appId = appId
        self.digest = digest
        self.email = email
        self.identity = identity
        self.expiresAt = expiresAt
    }
}
