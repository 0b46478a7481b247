// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation

/// `users`: one row per user (its identities are ``IdentitiesTable``'s).
package enum UsersTable {
    package static let insert: SQL = """
        INSERT INTO users (id, app_id, type, data, custom_data, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ user: UserRecord) -> [SQLValue] {
        [
            .text(user.id), .text(user.appId), .text(user.type), user.data.sqlValue, user.customData.sqlValue,
            .bool(user.disabled), .integer(user.createdAt),
        ]
    }

    /// The user and its identities, one row per identity (one row with NULL identity columns
    /// for a user without any), in link order.
    package static let withIdentities: SQL = """
        SELECT u.id, u.app_id, u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at,
               i.provider_type, i.external_id, i.provider_id, i.data, i.email
        FROM users u LEFT JOIN identities i ON i.user_id = u.id
        WHERE u.id = ? AND u.app_id = ? ORDER BY i.position
        """

    /// As ``withIdentities``, for the user holding an identity (a returning user's login).
    package static let withIdentitiesByIdentity: SQL = """
        SELECT u.id, u.app_id, u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at,
               i.provider_type, i.external_id, i.provider_id, i.data, i.email
        FROM identities o JOIN users u ON u.id = o.user_id AND u.app_id = o.app_id
            LEFT JOIN identities i ON i.user_id = u.id
        WHERE o.app_id = ? AND o.provider_type = ? AND o.external_id = ? ORDER BY i.position
        """

    /// The user of rows of ``withIdentities``, or nil when there are none.
    package static func userWithIdentities(_ rows: [(UserRecord, IdentityRecord?)]) -> UserRecord? {
        guard var user = rows.first?.0 else { return nil }
        user.identities = rows.compactMap(\.1)
        return user
    }

    /// A row of ``withIdentities``.
    package static func userAndIdentity<Row: SQLRow>(_ row: Row) throws -> (UserRecord, IdentityRecord?) {
        let identity = try row.optionalText("external_id") == nil ? nil : try IdentitiesTable.identity(row)
        return (try user(row, id: try row.text("id"), app: try row.text("app_id"), createdAt: "created_at"), identity)
    }

    /// The user columns of a row: `type`, `user_data`, `custom_data`, `disabled` and `createdAt`.
    package static func user<Row: SQLRow>(_ row: Row, id: String, app: String, createdAt: String) throws -> UserRecord {
        UserRecord(
            id: id, appId: app, type: try row.text("type"), data: try row.document("user_data") ?? [:],
            customData: try row.document("custom_data"), disabled: try row.bool("disabled"),
            createdAt: try row.int64(createdAt))
    }

    /// The ids (and last logins and revocations) of the users a ``UserQuery`` selects, by id, one page. The
    /// cursor is a plain `u.id > ?` (`""` for the first page), which an index serves; the
    /// optional filters only thin the rows it walks.
    package static let list: SQL = """
        SELECT u.id, u.last_login_at, u.valid_since FROM users u
        WHERE u.app_id = ? AND u.id > ? AND (CAST(? AS TEXT) IS NULL OR u.id = ?)
            AND (CAST(? AS BOOLEAN) IS NULL OR u.disabled = ?)
            AND (CAST(? AS BIGINT) IS NULL OR u.created_at >= ?) AND (CAST(? AS BIGINT) IS NULL OR u.created_at < ?)
            AND (CAST(? AS BIGINT) IS NULL OR u.last_login_at >= ?) AND (CAST(? AS BIGINT) IS NULL OR u.last_login_at < ?)
            AND (CAST(? AS TEXT) IS NULL OR EXISTS (
                SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.provider_type = ?))
            AND (CAST(? AS TEXT) IS NULL OR EXISTS (
                SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.email LIKE ? ESCAPE '!')
                OR EXISTS (SELECT 1 FROM identities i JOIN userpass_accounts a
                    ON a.app_id = i.app_id AND a.identity_id = i.external_id
                    WHERE i.user_id = u.id AND i.provider_type = 'local-userpass' AND lower(a.email) LIKE ? ESCAPE '!'))
        ORDER BY u.id LIMIT ?
        """

    package static func listArguments(app: String, _ q: UserQuery) -> [SQLValue] {
        // LIKE's wildcards in the prefix are matched as themselves.
        let pattern = q.emailPrefix.map { prefix in
            prefix.lowercased().replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%")
                .replacingOccurrences(of: "_", with: "!_") + "%"
        }
        return [
            .text(app), .text(q.after ?? ""), .text(q.id), .text(q.id), q.disabled.map(SQLValue.bool) ?? .null,
            q.disabled.map(SQLValue.bool) ?? .null,
            .integer(q.createdAfter), .integer(q.createdAfter), .integer(q.createdBefore), .integer(q.createdBefore),
            .integer(q.lastLoginAfter), .integer(q.lastLoginAfter), .integer(q.lastLoginBefore), .integer(q.lastLoginBefore),
            .text(q.provider), .text(q.provider), .text(pattern), .text(pattern), .text(pattern), .integer(q.limit),
        ]
    }

    package static let lastLogin: SQL = "SELECT last_login_at, valid_since FROM users WHERE id = ? AND app_id = ?"
    package static let setLastLogin: SQL = "UPDATE users SET last_login_at = ? WHERE id = ?"
    package static let setValidSince: SQL = "UPDATE users SET valid_since = ? WHERE id = ? AND app_id = ? RETURNING 1"
    package static let setDisabled: SQL = "UPDATE users SET disabled = ? WHERE id = ? AND app_id = ? RETURNING 1"

    /// Locks the user's row until the transaction ends (two changes of its identities or keys
    /// at once run one after the other).
    package static let lock = SQL("SELECT id FROM users WHERE id = ?", lock: .wait)
    package static let selectData: SQL = "SELECT data AS user_data FROM users WHERE id = ?"
    package static let setData: SQL = "UPDATE users SET data = ? WHERE id = ?"
    package static let setCustomData: SQL = "UPDATE users SET custom_data = ? WHERE id = ? AND app_id = ? RETURNING 1"
    package static let setDataOfApp: SQL = "UPDATE users SET data = ? WHERE id = ? AND app_id = ? RETURNING 1"
    /// Identities, sessions and API keys go with it (ON DELETE CASCADE).
    package static let delete: SQL = "DELETE FROM users WHERE id = ? AND app_id = ? RETURNING 1"

    /// Users created before a time whose every identity is anonymous (arguments: the time,
    /// then `anon-user` twice).
    package static let deleteAnonymous: SQL = """
        DELETE FROM users WHERE created_at < ?
            AND id IN (SELECT user_id FROM identities WHERE provider_type = ?)
            AND id NOT IN (SELECT user_id FROM identities WHERE provider_type <> ?)
        RETURNING 1
        """
}

// MARK: the record

/// A user of an app, with its identities in link order.
public struct UserRecord: Sendable, Equatable {
    public var id: String
    public var appId: String
    /// `normal` or `server`.
    public var type = "normal"
    /// Profile `data` (email, name, ...).
    public var data = EJSONDocument()
    /// Custom user data, the `user_data` claim of access tokens.
    public var customData: EJSONDocument?
    public var disabled = false
    public var createdAt: Int64
    public var identities: [IdentityRecord] = []

    /// True when every identity is anonymous.
    public var isAnonymous: Bool { !identities.isEmpty && identities.allSatisfy { $0.providerType == ProviderType.anonymous } }

    /// The memberwise initialiser, for the whole package.
    package init(
        id: String, appId: String, type: String = "normal", data: EJSONDocument = EJSONDocument(), customData: EJSONDocument? = nil,
        disabled: Bool = false, createdAt: Int64, identities: [IdentityRecord] = []
    ) {
        self.id = id
        self.appId = appId
        self.type = type
        self.data = data
        self.customData = customData
        self.disabled = disabled
        self.createdAt = createdAt
        self.identities = identities
    }
}
