// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Email/password accounts and their confirmation and reset tokens. One area of ``AuthStore``.
public protocol UserpassStore: Sendable {
    func userpassAccount(app: String, email: String) async throws -> UserpassAccount?
    /// The account whose `local-userpass` identity is `identityId`, or nil.
    func userpassAccount(app: String, identityId: String) async throws -> UserpassAccount?
    /// Inserts a new account; conflict if the email is taken.
    func insertUserpassAccount(_ account: UserpassAccount) async throws
    func deleteUserpassAccount(app: String, email: String) async throws
    func confirmUserpassAccount(app: String, email: String) async throws
    /// Marks the account's email proven or not (an administrator's word for it).
    func setEmailVerified(_ verified: Bool, app: String, email: String) async throws
    /// Replaces the password hash (a rehash at login: sessions stay).
    func setPassword(app: String, email: String, hash: String) async throws
    /// Sets a new password and ends every session of the account's user, in one transaction.
    func resetPassword(app: String, email: String, hash: String) async throws
    /// Sets a new password and ends every other session of the account's user (the one that
    /// changed it stays), in one transaction.
    func changePassword(app: String, email: String, hash: String, keepSession: String) async throws
    /// Stores a confirmation or reset token, and queues `mail` (the one that carries it) in the
    /// same transaction. Earlier tokens of that kind for that email stay valid (a new request
    /// must not cancel a mail on its way) unless expired at `now` or older than the newest `keep`.
    func insertToken(_ token: OneTimeToken, now: Int64, keep: Int, mail: QueuedMail?) async throws
    /// Removes one token (a failed reset attempt's), whatever its digest.
    func discardToken(app: String, id: String) async throws
    /// Uses a token once: if the digest matches and it has not expired, removes it and every
    /// other token of its kind for its email, and returns the email.
    func consumeToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String?
    /// As ``consumeToken(app:kind:id:digest:now:)``, with the token's `newEmail` (of an email
    /// change) too.
    func useToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws
        -> (email: String, newEmail: String?)?
    /// The email of a token that ``consumeToken(app:kind:id:digest:now:)`` would take now,
    /// without using it (Firebase's `checkActionCode`); nil otherwise.
    func tokenEmail(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String?
    /// As ``tokenEmail(app:kind:id:digest:now:)``, with the token's `newEmail` too.
    func peekToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws
        -> (email: String, newEmail: String?)?
    /// Moves the account of the email `from` to the email `to`, in one transaction: the account
    /// (its email proven as `verified` says; a proven one confirms it), its `local-userpass`
    /// identity (the email of its data, and `vouched`, the email it vouches for or nil), its
    /// user's profile email, and the tokens of the old email (spent: they were that mailbox's).
    /// Every session of its user ends but `keepSession` (all of them when nil). ``EmailChange``
    /// says what happened; nothing changes unless it is `changed`.
    func changeEmail(app: String, from: String, to: String, verified: Bool, vouched: String?, keepSession: String?) async throws
        -> EmailChange
}

/// What ``UserpassStore/changeEmail(app:from:to:verified:vouched:keepSession:)`` did.
public enum EmailChange: Sendable, Equatable {
    case changed
    /// No account has the old email.
    case notFound
    /// Another account has the new email (in any case), or another user's identity vouches
    /// for it.
    case taken
}

extension UserpassStore {
    /// Stores a token that no queued mail carries (see ``insertToken(_:now:keep:mail:)``).
    package func insertToken(_ token: OneTimeToken, now: Int64, keep: Int) async throws {
        try await insertToken(token, now: now, keep: keep, mail: nil)
    }
}
