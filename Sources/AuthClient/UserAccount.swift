// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// One login session of a user, as `sessions()` lists it.
public struct UserSession: Sendable, Equatable {
    public var id: String
    public var deviceId: String
    /// Unix seconds of the login that started it.
    public var created: Int64
    /// Unix seconds of its last refresh (to within a minute), or `created`.
    public var lastUsed: Int64
    /// The provider it was logged in with.
    public var providerType: String?
    /// True for the session of this client's tokens.
    public var isCurrent: Bool
}

/// What a signed-in user does to their own account (docs/protocol/identity-providers.md sections 6 and 7).
extension User {
    /// Removes one identity (an email/password identity takes its account with it); the last
    /// one cannot go (`CannotUnlinkLastIdentity`). The profile and identities here follow.
    @discardableResult
    public func unlink(providerType: String, id identityId: String) async throws(AuthClientError) -> User {
        if let firebase = app.firebase { return try await unlinkFirebase(firebase, providerType: providerType) }
        let reply = try await app.request(
            "POST", Routes.unlink, body: ["provider_type": .string(providerType), "id": .string(identityId)],
            auth: .access(userId: id))
        let (profile, identities) = try app.profile(from: reply)
        try app.change(id) { record in
            record?.profile = profile
            record?.identities = identities
        }
        return self
    }

    /// Logs in again as this user (before a sensitive operation, when the server wants a
    /// recent login): the user keeps its object and place, its tokens are replaced and the
    /// old session is ended. Credentials of another user fail with `UserMismatch` and change
    /// nothing here (the session they opened on the server is ended again).
    @discardableResult
    public func reauthenticate(with credentials: Credentials) async throws(AuthClientError) -> User {
        guard let old = app.users.withLock({ $0[id] }) else {
            throw AuthClientError(code: AuthClientError.userNotFound, message: "User has already been removed")
        }
        guard credentials.provider != ProviderType.anonymous else {
            throw AuthClientError(code: AuthClientError.userMismatch, message: "anonymous credentials always name a new user")
        }
        let reply = try await app.loginReply(credentials, deviceId: old.deviceId)
        guard reply.userId == id else {
            // Firebase's API ends no session for a client: its tokens are only forgotten.
            if app.firebase == nil { _ = try? await app.request("DELETE", Routes.session, body: nil, auth: .token(reply.refresh)) }
            throw AuthClientError(
                code: AuthClientError.userMismatch,
                message: "the credentials are those of another user (\(reply.userId)), not \(id)")
        }
        try app.change(id) { record in
            guard record != nil else { return }
            reply.apply(to: &record!)
        }
        if app.firebase == nil, let stale = old.refreshToken, stale != reply.refresh {
            _ = try? await app.request("DELETE", Routes.session, body: nil, auth: .token(stale))
        }
        return self
    }

    /// The user's sessions on the server, oldest first.
    public func sessions() async throws(AuthClientError) -> [UserSession] {
        let reply = try await app.request("GET", Routes.sessions, body: nil, auth: .access(userId: id))
        guard let items = reply.arrayValue else { throw app.malformed("the session list is not an array") }
        var sessions: [UserSession] = []
        for item in items {
            guard let sid = item["id"]?.stringValue, let created = item["created"]?.integerValue else {
                throw app.malformed("a session lacks id or created")
            }
            sessions.append(
                UserSession(
                    id: sid, deviceId: item["device_id"]?.stringValue ?? ObjectId.zero.hex, created: created,
                    lastUsed: item["last_used"]?.integerValue ?? created,
                    providerType: item["provider_type"]?.stringValue,
                    isCurrent: item["current"]?.boolValue ?? false))
        }
        return sessions
    }

    /// Ends one of the user's sessions (`SessionNotFound` for an id that is not theirs).
    public func revokeSession(id sessionId: String) async throws(AuthClientError) {
        _ = try await app.request("DELETE", Routes.session(sessionId), body: nil, auth: .access(userId: id))
    }

    /// Ends every session of the user but this client's; returns how many ended.
    @discardableResult
    public func revokeOtherSessions() async throws(AuthClientError) -> Int {
        let reply = try await app.request("DELETE", Routes.sessions, body: nil, auth: .access(userId: id))
        return Int(reply["revoked"]?.integerValue ?? 0)
    }
}

extension EmailPasswordAuth {
    /// Changes the password of `user` (default: the current user) while signed in: `from` is
    /// checked as a login checks it; the user's other sessions end, this one stays.
    public func changePassword(from old: String, to new: String, for user: User? = nil) async throws(AuthClientError) {
        guard let user = user ?? app.currentUser else {
            throw AuthClientError(code: AuthClientError.userNotLoggedIn, message: "changePassword: no user is logged in")
        }
        if let firebase = app.firebase { return try await user.changePasswordFirebase(firebase, from: old, to: new) }
        _ = try await app.request(
            "POST", Routes.userpass(app.id, "change"),
            body: ["password": .string(old), "newPassword": .string(new)], auth: .access(userId: user.id))
    }
}

extension App {
    /// A profile answer's data and identities.
    func profile(from reply: EJSON) throws(AuthClientError) -> (profile: UserProfile, identities: [UserIdentity]) {
        guard case .document(let data)? = reply["data"], case .array(let ids)? = reply["identities"] else {
            throw malformed("the profile has no data or identities")
        }
        return (UserProfile(data: data), ids.compactMap(UserIdentity.init))
    }
}
