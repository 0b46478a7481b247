// SPDX-License-Identifier: Apache-2.0
/// The statements of export and import: users with their identities and accounts, a page of
/// ids at a time; accounts no user holds yet (registered, never logged in).
///
/// Ranges are plain `>` and `<=` comparisons, with `""` for "from the first" and ``idsEnd``
/// for "to the last", never `? IS NULL OR`: SQLite cannot use an index for a range behind an
/// `OR`, and a scan per page made an export of a million users quadratic.
package enum TransferStatements {
    /// Sorts after every id (hex digits) and every email: "to the last".
    package static let idsEnd = "\u{10FFFF}"

    /// The id that ends a page of `limit` users after a cursor: the page's last (arguments:
    /// app, cursor, limit - 1).
    package static let pageEnd: SQL = "SELECT id FROM users WHERE app_id = ? AND id > ? ORDER BY id LIMIT 1 OFFSET ?"

    /// The users from the cursor (exclusive) to the page's end (inclusive), one row per
    /// identity, with that identity's account when it is `local-userpass`.
    package static let page: SQL = """
        SELECT u.id, u.app_id, u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at, u.last_login_at,
               i.provider_type, i.external_id, i.provider_id, i.data, i.email,
               a.email AS account_email, a.password_hash, a.confirmed, a.created_at AS account_created_at, a.email_verified
        FROM users u LEFT JOIN identities i ON i.user_id = u.id
            LEFT JOIN userpass_accounts a ON a.app_id = u.app_id AND i.provider_type = 'local-userpass' AND a.identity_id = i.external_id
        WHERE u.app_id = ? AND u.id > ? AND u.id <= ?
        ORDER BY u.id, i.position
        """

    /// Accounts whose identity no user holds, by email after a cursor (arguments: app, cursor, limit).
    package static let looseAccounts: SQL = """
        SELECT a.app_id, a.email, a.password_hash, a.identity_id, a.confirmed, a.created_at, a.email_verified
        FROM userpass_accounts a
        WHERE a.app_id = ? AND a.email > ?
            AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.app_id = a.app_id AND i.provider_type = 'local-userpass'
                            AND i.external_id = a.identity_id)
        ORDER BY a.email LIMIT ?
        """

    package static let countUsers: SQL = "SELECT COUNT(*) AS n FROM users WHERE app_id = ?"
    package static let userExists: SQL = "SELECT 1 AS found FROM users WHERE id = ?"
    package static let accountExists: SQL = "SELECT 1 AS found FROM userpass_accounts WHERE app_id = ? AND lower(email) = lower(?)"
    package static let insertUser: SQL = """
        INSERT INTO users (id, app_id, type, data, custom_data, disabled, created_at, last_login_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The second factors of the users of a page (arguments: app, cursor, page end).
    package static let totpPage: SQL = """
        SELECT user_id, app_id, secret, confirmed_at, last_step, created_at FROM totp_factors
        WHERE app_id = ? AND user_id > ? AND user_id <= ?
        """
    package static let recoveryCodesPage: SQL = """
        SELECT r.user_id, r.digest FROM recovery_codes r JOIN users u ON u.id = r.user_id
        WHERE u.app_id = ? AND r.user_id > ? AND r.user_id <= ? ORDER BY r.user_id, r.digest
        """
    package static let phonesPage: SQL = """
        SELECT user_id, app_id, enrollment_id, phone_number, display_name, enrolled_at AS created_at FROM phone_factors
        WHERE app_id = ? AND user_id > ? AND user_id <= ? ORDER BY user_id, enrolled_at, enrollment_id
        """
    package static let insertTOTP: SQL = """
        INSERT INTO totp_factors (user_id, app_id, secret, confirmed_at, last_step, created_at) VALUES (?, ?, ?, ?, ?, ?)
        """
}
