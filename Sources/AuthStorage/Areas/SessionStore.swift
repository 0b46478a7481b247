// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Login sessions: the server side of refresh tokens. One area of ``AuthStore``.
public protocol SessionStore: Sendable {
    /// Inserts a session (a login), and queues `events` in the same transaction.
    func insertSession(_ session: SessionRecord, events: [TriggerRun]) async throws
    /// A new user's login in one transaction: `user` as ``insertUser(_:events:)`` inserts it
    /// (with `userEvents`), then `session` as ``insertSession(_:events:)`` does; conflict if an
    /// identity belongs to someone already, and then neither is written.
    func insertUser(_ user: UserRecord, events userEvents: [TriggerRun], session: SessionRecord, sessionEvents: [TriggerRun]) async throws
    /// The session and its user (for a refresh: one read); the user's identities only when
    /// `identities` (a refresh does not need them).
    func sessionWithUser(id: String, identities: Bool) async throws -> (SessionRecord, UserRecord)?
    func deleteSession(id: String) async throws
    /// The user's sessions, oldest first.
    func sessions(userId: String, app: String) async throws -> [SessionRecord]
    /// Ends one session of the user; false when the user has no such session.
    func deleteSession(id: String, userId: String, app: String) async throws -> Bool
    /// Ends every session of the user but `keep`; returns how many ended.
    func deleteSessions(userId: String, app: String, except keep: String) async throws -> Int
    /// Ends the user's sessions that began before `time` and records `time` as the moment the
    /// user's tokens are valid from (Firebase's `validSince`), in one transaction; false when
    /// the app has no such user. ``AdminUserRecord/validSince`` reads it back.
    func revokeTokens(userId: String, app: String, before time: Int64) async throws -> Bool
    /// A refresh's session and its user (with its identities only when `identities`: another
    /// API's tokens name them), as they were before this call, and the session marked used at
    /// `now` when the refresh will be answered (`digest` is the session's, it has not expired,
    /// its user is not disabled) and its last use (or its login) is at or before `due`. One
    /// statement where the engine can (PostgreSQL); a read, then a write only when one is due,
    /// where it cannot.
    func refreshSession(id: String, digest: [UInt8], now: Int64, due: Int64, identities: Bool) async throws -> (SessionRecord, UserRecord)?
    /// Whether a session is live, and whose: what an access token's check needs, in one
    /// indexed read that parses no document (`functions/call` makes it on every call).
    func sessionState(id: String) async throws -> SessionState?
}

extension SessionStore {
    /// ``refreshSession(id:digest:now:due:identities:)`` without identities (App Services'
    /// refresh).
    package func refreshSession(id: String, digest: [UInt8], now: Int64, due: Int64) async throws -> (SessionRecord, UserRecord)? {
        try await refreshSession(id: id, digest: digest, now: now, due: due, identities: false)
    }

    /// Inserts a session that starts no trigger.
    package func insertSession(_ session: SessionRecord) async throws { try await insertSession(session, events: []) }
}
