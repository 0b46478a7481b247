// SPDX-License-Identifier: Apache-2.0
/// `one_time_tokens`: confirmation and reset tokens (their digests), used once.
package enum OneTimeTokensTable {
    /// Before a new token: removes the email's expired tokens of that kind, and the oldest
    /// past the newest `keep - 1` (the LIMIT only stands for "all": SQLite needs one before OFFSET).
    package static let prune: SQL = """
        DELETE FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ? AND (expires_at <= ? OR id IN
            (SELECT id FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ?
             ORDER BY expires_at DESC, id DESC LIMIT 1000000000 OFFSET ?))
        """
    package static let insert: SQL = """
        INSERT INTO one_time_tokens (id, app_id, kind, email, digest, expires_at, new_email) VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    package static let discard: SQL = "DELETE FROM one_time_tokens WHERE id = ? AND app_id = ?"
    /// The token, locked until its use commits (two uses at once cannot both succeed).
    package static let select = SQL(
        "SELECT email, new_email, digest, expires_at FROM one_time_tokens WHERE id = ? AND app_id = ? AND kind = ?",
        lock: .wait)
    /// The token, read without a lock (a check that uses nothing).
    package static let peek: SQL = "SELECT email, new_email, digest, expires_at FROM one_time_tokens WHERE id = ? AND app_id = ? AND kind = ?"
    package static let deleteOne: SQL = "DELETE FROM one_time_tokens WHERE id = ?"
    /// Every token of a kind for an email (one of them was used).
    package static let deleteOfEmail: SQL = "DELETE FROM one_time_tokens WHERE app_id = ? AND kind = ? AND email = ?"
    /// Every token of every kind for an email (the account moved to another one).
    package static let deleteAllOfEmail: SQL = "DELETE FROM one_time_tokens WHERE app_id = ? AND email = ?"
}

// MARK: the record

/// A confirmation or reset token; only its digest is stored, and it is used once.
public struct OneTimeToken: Sendable, Equatable {
    /// `confirm` and `reset` for the mails of those names; `signin` for a sign-in link
    /// (Firebase's email link); `changeemail` for the link that moves an account to a new
    /// email (mailed to it), `recoveremail` for the one that moves it back (mailed to the old
    /// one after a change).
    public enum Kind: String, Sendable, CaseIterable {
        case confirm, reset, signIn = "signin", changeEmail = "changeemail", recoverEmail = "recoveremail"
    }
    /// The `tokenId` of the link.
    public var id: String
    public var appId: String
    public var kind: Kind
    /// The account's email (of `recoveremail`: the one it had before the change).
    public var email: String
    public var digest: [UInt8]
    public var expiresAt: Int64
    /// `changeemail`: the email the account moves to; `recoveremail`: the one it moved to.
    public var newEmail: String?

    /// The memberwise initialiser, for the whole package.
    package init(id: String, appId: String, kind: Kind, email: String, digest: [UInt8], expiresAt: Int64, newEmail: String? = nil) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.email = email
        self.digest = digest
        self.expiresAt = expiresAt
        self.newEmail = newEmail
    }
}
