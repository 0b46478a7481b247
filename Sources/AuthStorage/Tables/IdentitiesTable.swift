// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// `identities`: who a user is to each provider, in link order (`position`), with the
/// verified email the provider vouches for.
package enum IdentitiesTable {
    package static let insert: SQL = """
        INSERT INTO identities (app_id, provider_type, external_id, user_id, provider_id, data, position, email)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ identity: IdentityRecord, userId: String, app: String, position: Int) -> [SQLValue] {
        [
            .text(app), .text(identity.providerType), .text(identity.externalId), .text(userId), .text(identity.providerId),
            identity.data.sqlValue, .integer(position), .text(identity.email),
        ]
    }

    /// The columns `provider_type`, `external_id`, `provider_id`, `data` and `email` of a row.
    package static func identity<Row: SQLRow>(_ row: Row) throws -> IdentityRecord {
        IdentityRecord(
            externalId: try row.text("external_id"), providerType: try row.text("provider_type"),
            providerId: try row.text("provider_id"), data: try row.document("data") ?? [:],
            email: try row.optionalText("email"))
    }

    /// One identity and its user.
    package static let select: SQL = """
        SELECT user_id, provider_type, external_id, provider_id, data, email FROM identities
        WHERE app_id = ? AND provider_type = ? AND external_id = ?
        """
    package static let setDataAndEmail: SQL = """
        UPDATE identities SET data = ?, email = ? WHERE app_id = ? AND provider_type = ? AND external_id = ?
        """
    package static let owner: SQL = "SELECT user_id FROM identities WHERE app_id = ? AND provider_type = ? AND external_id = ?"
    package static let nextPosition: SQL = "SELECT COALESCE(MAX(position), -1) + 1 AS next FROM identities WHERE user_id = ?"
    /// How many identities the user has, and how many of them are the one named.
    package static let counts: SQL = """
        SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE provider_type = ? AND external_id = ?) AS held
        FROM identities WHERE user_id = ? AND app_id = ?
        """
    package static let delete: SQL = "DELETE FROM identities WHERE app_id = ? AND provider_type = ? AND external_id = ?"
    package static let setEmail: SQL = "UPDATE identities SET email = ? WHERE app_id = ? AND provider_type = ? AND external_id = ?"

    /// The oldest user with an identity vouching for an email (with oneAccountPerEmail turned
    /// on late, that is the account the email was first used for).
    package static let emailOwner: SQL = """
        SELECT i.user_id FROM identities i JOIN users u ON u.id = i.user_id
        WHERE i.app_id = ? AND i.email = ? ORDER BY u.created_at, u.id LIMIT 1
        """
    package static let providerTypes: SQL = "SELECT provider_type FROM identities WHERE user_id = ? ORDER BY position"
}

// MARK: the record

/// One identity of a user: who the user is to one provider.
public struct IdentityRecord: Sendable, Equatable {
    /// The id the provider knows the user by (userpass: the account's identity id; custom-token: `sub`).
    public var externalId: String
    public var providerType: String
    public var providerId: String
    public var data = EJSONDocument()
    /// The email the provider vouches for (verified), lowercased; nil when it vouches for
    /// none. What `oneAccountPerEmail` and `auth/methods` look identities up by.
    public var email: String?

    /// The memberwise initialiser, for the whole package.
    package init(externalId: String, providerType: String, providerId: String, data: EJSONDocument = EJSONDocument(), email: String? = nil) {
        self.externalId = externalId
        self.providerType = providerType
        self.providerId = providerId
        self.data = data
        self.email = email
    }
}
