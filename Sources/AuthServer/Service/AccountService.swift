// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// What a signed-in user does to their own account (docs/protocol/identity-providers.md section 6):
/// unlink an identity, change their password, see and end their sessions, delete themselves.
/// Each of these but listing needs a recent login when the app sets `recentLoginSeconds`.
struct AccountService {
    let store: any SessionStore & UserStore & UserpassStore
    let sessions: SessionService
    let passwords: Passwords
    let abuse: AbuseControls
    /// Runs the `DELETE` triggers a deletion queues.
    let triggers: TriggerRunner

    /// `DELETE /auth/delete`.
    func deleteUser(_ caller: Caller) async throws {
        try sessions.requireRecentLogin(caller)
        try await triggers.deleteUser(try await sessions.user(of: caller), app: caller.app)
    }

    /// `GET /auth/sessions`: `[{id, device_id, created, last_used, current}]`, oldest first.
    func sessions(_ caller: Caller) async throws -> EJSON {
        .array(
            try await store.sessions(userId: caller.userId, app: caller.app.id).map { s in
                [
                    "id": .string(s.id), "device_id": .string(s.deviceId), "created": .int64(s.createdAt),
                    "last_used": .int64(s.lastUsed ?? s.createdAt), "current": .bool(s.id == caller.sessionId),
                    "provider_type": .string(s.providerType),
                ]
            })
    }

    /// `DELETE /auth/sessions/{id}`: ends one of the caller's sessions (its refresh token and
    /// its access tokens stop working at once); 404 `SessionNotFound` for any other id.
    func revokeSession(_ caller: Caller, id: String) async throws {
        try sessions.requireRecentLogin(caller)
        guard try await store.deleteSession(id: id, userId: caller.userId, app: caller.app.id) else {
            throw ServiceError(.sessionNotFound, "the user has no session with that id")
        }
    }

    /// `DELETE /auth/sessions`: ends every session of the caller but the current one;
    /// answers `{"revoked": N}`.
    func revokeOtherSessions(_ caller: Caller) async throws -> EJSON {
        try sessions.requireRecentLogin(caller)
        let count = try await store.deleteSessions(userId: caller.userId, app: caller.app.id, except: caller.sessionId)
        return ["revoked": .int64(Int64(count))]
    }

    /// `POST /auth/unlink {provider_type, id}`: removes one identity of the caller (and, for
    /// email/password, its account); the last one stays (400 `CannotUnlinkLastIdentity`).
    /// Answers the new profile.
    func unlink(_ caller: Caller, providerType type: String, id: String) async throws -> EJSON {
        try sessions.requireRecentLogin(caller)
        let app = caller.app
        switch try await store.removeIdentity(app: app.id, userId: caller.userId, providerType: type, externalId: id) {
        case .notFound:
            throw ServiceError(.invalidParameter, "the user has no \(type) identity with that id")
        case .lastIdentity:
            throw ServiceError(.cannotUnlinkLastIdentity, "cannot unlink the user's only identity: link another one first")
        case .removed:
            return try await sessions.user(of: caller).profile(app: app)
        }
    }

    /// `POST {app}/auth/providers/local-userpass/change {password, newPassword}`: the caller's
    /// current password, checked as a login checks it (back-off included), then the new one;
    /// every other session of the user ends, the caller's stays.
    func changePassword(_ caller: Caller, password: String, newPassword: String, address: String) async throws {
        try sessions.requireRecentLogin(caller)
        let app = caller.app
        let user = try await sessions.user(of: caller)
        guard app.config.providers.userpass != nil else {
            throw ServiceError(.authProviderNotFound, "authentication via 'local-userpass' is unsupported")
        }
        guard let identity = user.identities.first(where: { $0.providerType == ProviderType.userpass }),
            case .string(let email)? = identity.data["email"]
        else { throw ServiceError(.invalidParameter, "the user has no email/password identity") }
        try Passwords.checkLength(newPassword)
        try await abuse.checkRate(.login, app: app, address: address)
        _ = try await passwords.check(app: app, email: email, password: password, address: address)
        let hash = try await passwords.hasher.hash(newPassword)
        try await store.changePassword(app: app.id, email: email, hash: hash, keepSession: caller.sessionId)
    }
}
