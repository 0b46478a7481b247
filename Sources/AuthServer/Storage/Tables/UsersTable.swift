import AuthProtocol

/// `users`: one row per user (its identities are ``IdentitiesTable``'s).
enum UsersTable {
    static let insert: SQL = """
        INSERT INTO users (id, app_id, type, data, custom_data, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    static func insertArguments(_ user: UserRecord) -> [SQLValue] {
        [.text(user.id), .text(user.appId), .text(user.type), user.data.sqlValue, user.customData.sqlValue,
         .bool(user.disabled), .integer(user.createdAt)]
    }

    /// The user and its identities, one row per identity (one row with NULL identity columns
    /// for a user without any), in link order.
    static let withIdentities: SQL = """
        SELECT u.id, u.app_id, u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at,
               i.provider_type, i.external_id, i.provider_id, i.data, i.email
        FROM users u LEFT JOIN identities i ON i.user_id = u.id
        WHERE u.id = ? AND u.app_id = ? ORDER BY i.position
        """

    /// As ``withIdentities``, for the user holding an identity (a returning user's login).
    static let withIdentitiesByIdentity: SQL = """
        SELECT u.id, u.app_id, u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at,
               i.provider_type, i.external_id, i.provider_id, i.data, i.email
        FROM identities o JOIN users u ON u.id = o.user_id AND u.app_id = o.app_id
            LEFT JOIN identities i ON i.user_id = u.id
        WHERE o.app_id = ? AND o.provider_type = ? AND o.external_id = ? ORDER BY i.position
        """

    /// The user of rows of ``withIdentities``, or nil when there are none.
    static func userWithIdentities(_ rows: [(UserRecord, IdentityRecord?)]) -> UserRecord? {
        guard var user = rows.first?.0 else { return nil }
        user.identities = rows.compactMap(\.1)
        return user
    }

    /// A row of ``withIdentities``.
    static func userAndIdentity<Row: SQLRow>(_ row: Row) throws -> (UserRecord, IdentityRecord?) {
        let identity = try row.optionalText("external_id") == nil ? nil : try IdentitiesTable.identity(row)
        return (try user(row, id: try row.text("id"), app: try row.text("app_id"), createdAt: "created_at"), identity)
    }

    /// The user columns of a row: `type`, `user_data`, `custom_data`, `disabled` and `createdAt`.
    static func user<Row: SQLRow>(_ row: Row, id: String, app: String, createdAt: String) throws -> UserRecord {
        UserRecord(id: id, appId: app, type: try row.text("type"), data: try row.document("user_data") ?? [:],
                   customData: try row.document("custom_data"), disabled: try row.bool("disabled"),
                   createdAt: try row.int64(createdAt))
    }

    /// Locks the user's row until the transaction ends (two changes of its identities or keys
    /// at once run one after the other).
    static let lock = SQL("SELECT id FROM users WHERE id = ?", lock: .wait)
    static let setData: SQL = "UPDATE users SET data = ? WHERE id = ?"
    static let setCustomData: SQL = "UPDATE users SET custom_data = ? WHERE id = ? AND app_id = ? RETURNING 1"
    /// Identities, sessions and API keys go with it (ON DELETE CASCADE).
    static let delete: SQL = "DELETE FROM users WHERE id = ? AND app_id = ?"

    /// Users created before a time whose every identity is anonymous (arguments: the time,
    /// then `anon-user` twice).
    static let deleteAnonymous: SQL = """
        DELETE FROM users WHERE created_at < ?
            AND id IN (SELECT user_id FROM identities WHERE provider_type = ?)
            AND id NOT IN (SELECT user_id FROM identities WHERE provider_type <> ?)
        RETURNING 1
        """
}
