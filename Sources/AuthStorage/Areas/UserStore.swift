// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Users and their identities. One area of ``AuthStore``.
public protocol UserStore: Sendable {
    /// Inserts a user with its identities, and queues `events` (its triggers' runs) in the same
    /// transaction; conflict if an identity belongs to someone already.
    func insertUser(_ user: UserRecord, events: [TriggerRun]) async throws
    /// The user with its identities, or nil.
    func user(id: String, app: String) async throws -> UserRecord?
    /// The id of the user holding this identity, or nil.
    func userId(app: String, providerType: String, externalId: String) async throws -> String?
    /// The user holding this identity, with its identities, or nil (one read: a returning user's login).
    func user(app: String, providerType: String, externalId: String) async throws -> UserRecord?
    /// Appends an identity (and merges `data` into the profile); conflict if someone holds it.
    func addIdentity(_ identity: IdentityRecord, toUser userId: String, app: String, profile: EJSONDocument) async throws
    /// Removes one identity of a user (and, for `local-userpass`, its account), unless it is
    /// the user's last one.
    func removeIdentity(app: String, userId: String, providerType: String, externalId: String) async throws -> IdentityRemoval
    /// Sets the user's custom data document; false when the app has no such user.
    @discardableResult
    func setCustomData(_ data: EJSONDocument?, userId: String, app: String) async throws -> Bool
    /// Replaces the user's profile (`data`: `name`, `email`, `picture_url`, ...); false when the
    /// app has no such user.
    func setUserData(_ data: EJSONDocument, userId: String, app: String) async throws -> Bool
    /// Deletes the user, its identities, sessions, API keys and email/password accounts, and
    /// queues `events` in the same transaction (none when there was no such user).
    func deleteUser(id: String, app: String, events: [TriggerRun]) async throws

    /// Sets the verified email of an identity (its provider's email changed since the last login).
    func setIdentityEmail(_ email: String?, app: String, providerType: String, externalId: String) async throws
    /// Who holds verified email `email` (lowercased): the first user with an identity that
    /// vouches for it, with the providers that user signs in with; else, when `accounts`, a
    /// confirmed email/password account with that email that has not logged in yet; else nil.
    func emailHolder(app: String, email: String, accounts: Bool) async throws -> EmailHolder?

    /// Deletes the anonymous users (every identity anonymous) created before `time`, of every
    /// app; returns how many.
    func deleteAnonymousUsers(createdBefore time: Int64) async throws -> Int
}

extension UserStore {
    /// Inserts a user that starts no trigger.
    package func insertUser(_ user: UserRecord) async throws { try await insertUser(user, events: []) }

    /// Deletes a user without trigger runs.
    package func deleteUser(id: String, app: String) async throws { try await deleteUser(id: id, app: app, events: []) }
}
