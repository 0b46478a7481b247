import AuthProtocol

/// What a signed-in user does to their own account (identity-providers.md section 6):
/// unlink an identity, change their password.
extension AuthService {
    /// `POST /auth/unlink {provider_type, id}`: removes one identity of the caller (and, for
    /// email/password, its account); the last one stays (400 `CannotUnlinkLastIdentity`).
    /// Answers the new profile.
    func unlink(token: String, body: RequestBody) async throws -> EJSON {
        let (app, user, _) = try await userOfAccessToken(token)
        let type = try body.string("provider_type"), id = try body.string("id")
        switch try await store.removeIdentity(app: app.id, userId: user.id, providerType: type, externalId: id) {
        case .notFound:
            throw ServiceError(.invalidParameter, "the user has no \(type) identity with that id")
        case .lastIdentity:
            throw ServiceError(.cannotUnlinkLastIdentity, "cannot unlink the user's only identity: link another one first")
        case .removed:
            guard let fresh = try await store.user(id: user.id, app: app.id) else {
                throw ServiceError(.invalidSession, "invalid session: user not found")
            }
            return Self.profile(fresh, app: app)
        }
    }

    /// `POST {app}/auth/providers/local-userpass/change {password, newPassword}`: the caller's
    /// current password, checked as a login checks it (back-off included), then the new one;
    /// every other session of the user ends, the caller's stays.
    func changePassword(app: AppRuntime, token: String, body: RequestBody, address: String) async throws {
        let (tokenApp, user, claims) = try await userOfAccessToken(token)
        guard tokenApp.id == app.id else { throw ServiceError(.invalidSession, "invalid session: token of another app") }
        guard app.config.providers.userpass != nil else {
            throw ServiceError(.authProviderNotFound, "authentication via 'local-userpass' is unsupported")
        }
        guard let identity = user.identities.first(where: { $0.providerType == ProviderType.userpass }),
            case .string(let email)? = identity.data["email"]
        else { throw ServiceError(.invalidParameter, "the user has no email/password identity") }
        let newPassword = try body.string("newPassword")
        try Self.checkPasswordLength(newPassword)
        try checkRate(.login, app: app, address: address, account: email.lowercased())
        _ = try await checkPassword(app: app, email: email, password: try body.string("password"), address: address)
        let hash = try await hasher.hash(newPassword)
        try await store.changePassword(app: app.id, email: email, hash: hash, keepSession: claims.session ?? "")
    }
}
