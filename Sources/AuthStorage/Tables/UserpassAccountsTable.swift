// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// `userpass_accounts`: email/password accounts (a user gets one at its first login).
package enum UserpassAccountsTable {
    package static let select: SQL = """
        SELECT app_id, email, password_hash, identity_id, confirmed, created_at, email_verified
        FROM userpass_accounts WHERE app_id = ? AND email = ?
        """

    /// Whether an account but the identity's has an email, in any case (arguments: app, the
    /// email lowercased, the identity id; indexed: `userpass_accounts(app_id, lower(email))`).
    package static let holderOfEmail: SQL = """
        SELECT 1 AS found FROM userpass_accounts WHERE app_id = ? AND lower(email) = ? AND identity_id <> ?
        """
    /// Moves an account to another email (arguments: the new email, whether it is proven twice,
    /// app, the old email); a proven email confirms the account.
    package static let changeEmail: SQL = """
        UPDATE userpass_accounts SET email = ?, email_verified = ?, confirmed = (confirmed OR ?)
        WHERE app_id = ? AND email = ?
        """

    /// The account of an identity (indexed: `userpass_accounts(app_id, identity_id)`).
    package static let selectOfIdentity: SQL = """
        SELECT app_id, email, password_hash, identity_id, confirmed, created_at, email_verified
        FROM userpass_accounts WHERE app_id = ? AND identity_id = ?
        """

    package static func account<Row: SQLRow>(_ row: Row) throws -> UserpassAccount {
        UserpassAccount(
            appId: try row.text("app_id"), email: try row.text("email"), passwordHash: try row.text("password_hash"),
            identityId: try row.text("identity_id"), confirmed: try row.bool("confirmed"),
            createdAt: try row.int64("created_at"), emailVerified: try row.bool("email_verified"))
    }

    package static let insert: SQL = """
        INSERT INTO userpass_accounts (app_id, email, password_hash, identity_id, confirmed, created_at, email_verified)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ a: UserpassAccount) -> [SQLValue] {
        [
            .text(a.appId), .text(a.email), .text(a.passwordHash), .text(a.identityId), .bool(a.confirmed), .integer(a.createdAt),
            .bool(a.emailVerified),
        ]
    }

    package static let delete: SQL = "DELETE FROM userpass_accounts WHERE app_id = ? AND email = ?"
    /// A confirmation proves the email.
    package static let confirm: SQL = "UPDATE userpass_accounts SET confirmed = TRUE, email_verified = TRUE WHERE app_id = ? AND email = ?"
    package static let setPassword: SQL = "UPDATE userpass_accounts SET password_hash = ? WHERE app_id = ? AND email = ?"
    /// A reset by a mailed token proves the email.
    package static let setEmailVerified: SQL = "UPDATE userpass_accounts SET email_verified = ? WHERE app_id = ? AND email = ?"
    package static let proveEmail: SQL = "UPDATE userpass_accounts SET email_verified = TRUE WHERE app_id = ? AND email = ?"
    /// The account of a `local-userpass` identity (its unlink).
    package static let deleteOfIdentity: SQL = "DELETE FROM userpass_accounts WHERE app_id = ? AND identity_id = ?"
    /// The accounts of a user (its deletion; arguments: app, user, `local-userpass`).
    package static let deleteOfUser: SQL = """
        DELETE FROM userpass_accounts WHERE app_id = ? AND identity_id IN
            (SELECT external_id FROM identities WHERE user_id = ? AND provider_type = ?)
        """
    /// A confirmed account with a proven email (lowercased) whose identity no user holds yet:
    /// it has not logged in (arguments: app, email, `local-userpass`).
    package static let waitingWithEmail: SQL = """
        SELECT 1 AS found FROM userpass_accounts a WHERE a.app_id = ? AND lower(a.email) = ? AND a.confirmed = TRUE
            AND a.email_verified = TRUE
            AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.app_id = a.app_id AND i.provider_type = ?
                            AND i.external_id = a.identity_id)
        """
}

// MARK: the record

/// An email/password account. It gets a user on its first login (or link), as in App Services.
public struct UserpassAccount: Sendable, Equatable {
    public var appId: String
    public var email: String
    /// Argon2id PHC string.
    public var passwordHash: String
    /// The external id of its `local-userpass` identity.
    public var identityId: String
    public var confirmed: Bool
    public var createdAt: Int64
    /// Whether the person proved the email (its confirmation, or a reset by mail). False only
    /// for an account that logs in before that (Firebase's sign-up): its email vouches for
    /// nothing (no linking by email, no account conflict) until it is proven.
    public var emailVerified: Bool

    /// The memberwise initialiser, for the whole package.
    package init(
        appId: String, email: String, passwordHash: String, identityId: String, confirmed: Bool, createdAt: Int64, emailVerified: Bool = true
    ) {
        self.appId = appId
        self.email = email
        self.passwordHash = passwordHash
        self.identityId = identityId
        self.confirmed = confirmed
        self.createdAt = createdAt
        self.emailVerified = emailVerified
    }
}
