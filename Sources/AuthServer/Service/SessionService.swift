// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Sessions and the tokens that stand for them: a login's session, its access tokens and
/// their refresh, and who a bearer token names.
struct SessionService {
    let store: any SessionStore & UserStore & SecondFactorStore
    let clock: ServerClock
    let tokens: TokenIssuer
    let apps: [String: AppRuntime]
    /// Runs the apps' `accessTokenClaims` hooks.
    let hooks: AuthHooks

    /// "Never" for anonymous refresh tokens: 100 years.
    static let noExpiry: Int64 = 3_155_760_000

    /// The tokens of a new session.
    struct Tokens: Sendable {
        var access: String
        var refresh: String
        var deviceId: String
        /// The session's id.
        var session: String
    }

    /// Starts a session for `user`, logged in through `identity`; `claims` are the extra
    /// claims of its access token when the caller has them already (else the app's hook runs);
    /// `methods` how the login proved the person (``AuthenticationMethods``: the `amr` claim of
    /// every token of the session). Nothing is written unless the tokens are made. With
    /// `creating` (a new user's trigger runs) the user is inserted too, in the session's transaction.
    func startSession(
        app: AppRuntime, user: UserRecord, providerType: String, identityId: String,
        deviceId: String, claims: EJSONDocument? = nil, methods: [String] = [], sessionClaims: EJSONDocument? = nil,
        events: [TriggerRun] = [], creating: [TriggerRun]? = nil
    ) async throws -> Tokens {
        let config = app.config
        let now = clock.now
        let sessionId = clock.newId()
        let anonymous = user.isAnonymous
        let refreshExp = now + (anonymous ? Self.noExpiry : config.refreshTokenLifetimeSeconds)
        let refresh = try await tokens.sign(
            RefreshTokenClaims(
                exp: refreshExp, iat: now, sub: user.id, session: sessionId,
                identity: .init(id: identityId, providerType: providerType, providerId: app.providerId(providerType)),
                deviceId: deviceId, appId: app.id, methods: methods))
        let access = try await accessToken(
            app: app, user: user, session: sessionId, deviceId: deviceId, authTime: now, methods: methods, claims: claims)
        let session = SessionRecord(
            id: sessionId, appId: app.id, userId: user.id, deviceId: deviceId, providerType: providerType,
            identityId: identityId, refreshDigest: Secrets.digest(refresh), createdAt: now,
            expiresAt: anonymous ? nil : refreshExp, methods: methods, claims: sessionClaims)
        if let creating {
            try await store.insertUser(user, events: creating, session: session, sessionEvents: events)
        } else {
            try await store.insertSession(session, events: events)
        }
        return Tokens(access: access, refresh: refresh, deviceId: deviceId, session: sessionId)
    }

    /// An access token of `session`; `authTime` is when the session's login happened, and
    /// `methods` how it proved the person. The app's `accessTokenClaims` hook adds its claims,
    /// unless they are given as `claims`.
    func accessToken(
        app: AppRuntime, user: UserRecord, session: String, deviceId: String,
        authTime: Int64?, methods: [String] = [], claims: EJSONDocument? = nil
    ) async throws -> String {
        var extra = claims ?? [:]
        if claims == nil { extra = try await hooks.accessTokenClaims(user: user, app: app) }
        let now = clock.now
        return try await tokens.sign(
            AccessTokenClaims(
                exp: now + app.config.accessTokenLifetimeSeconds, iat: now, sub: user.id, session: session, deviceId: deviceId,
                appId: app.id, userData: user.customData, authTime: authTime, methods: methods),
            extra: extra)
    }

    /// `POST /auth/session`: a new access token for a live session. The session's `last_used`
    /// is written when it is older than ``lastUsedGranularity`` (a client refreshing often
    /// costs one write a minute, not one per refresh); on PostgreSQL in the read's statement.
    func refresh(_ refreshToken: String) async throws -> String {
        let (app, session, user, claims) = try await refreshTokenSession(refreshToken, markingUse: true)
        return try await accessToken(
            app: app, user: user, session: session.id, deviceId: session.deviceId,
            authTime: session.createdAt, methods: claims.amr ?? [])
    }

    /// A refresh for another API (Firebase's): the refresh token's live session, marked used as
    /// ``refresh(_:)`` marks it, with its app and user (with its identities, read in the same
    /// statement: that API's tokens name them).
    func refreshedSession(_ refreshToken: String) async throws -> (AppRuntime, SessionRecord, UserRecord) {
        let (app, session, user, _) = try await refreshTokenSession(refreshToken, identities: true, markingUse: true)
        return (app, session, user)
    }

    /// How precise a session's `last_used` is, in seconds.
    static let lastUsedGranularity: Int64 = 60

    /// The caller of a valid access token: its signature, kind, expiry and app (when
    /// `expected` is given, the token must be one of that app, the app of the route), its
    /// session live and its user enabled (``checkLive(_:app:)``). The user's record is not
    /// read: ``user(of:)`` does when a service needs it.
    func caller(accessToken token: String, in expected: AppRuntime? = nil) async throws -> Caller {
        let claims = try await tokens.verify(token, as: .access)
        guard let appId = claims.baas_domain_id, let app = apps[appId] else {
            throw ServiceError(.invalidSession, "invalid session: token of an unknown app")
        }
        if let expected, expected.id != app.id {
            throw ServiceError(.invalidSession, "invalid session: token of another app")
        }
        try await checkLive(claims, app: app)
        AuditTrail.user(claims.sub, app: app.id)
        return Caller(app: app, claims: claims)
    }

    /// The caller's user, with its identities.
    func user(of caller: Caller) async throws -> UserRecord {
        guard let user = try await store.user(id: caller.userId, app: caller.app.id) else {
            throw ServiceError(.invalidSession, "invalid session: user not found")
        }
        return user
    }

    /// Refuses an access token whose session ended or whose user is disabled or deleted. An
    /// access token is refused as soon as its session ends (logout, password reset or change,
    /// its API key deleted or disabled, the user deleted), on every server sharing the
    /// database: one indexed read that parses no document (``AuthStore/sessionState(id:)``).
    func checkLive(_ claims: IssuedTokenClaims, app: AppRuntime) async throws {
        guard let sessionId = claims.session, let state = try await store.sessionState(id: sessionId),
            state.appId == app.id, state.userId == claims.sub
        else {
            throw ServiceError(.invalidSession, "invalid session: the session has ended")
        }
        guard !state.userDisabled else { throw ServiceError(.userDisabled, "user is disabled") }
    }

    /// `DELETE /auth/session`: ends the refresh token's session.
    func logOut(refreshToken: String) async throws {
        try await store.deleteSession(id: try await caller(refreshToken: refreshToken).session.id)
    }

    /// The caller of a valid refresh token: its live session and enabled user, with its
    /// identities when `identities` (API keys are named by one).
    func caller(refreshToken token: String, identities: Bool = false) async throws -> SessionCaller {
        let (app, session, user, claims) = try await refreshTokenSession(token, identities: identities)
        return SessionCaller(app: app, session: session, user: user, claims: claims)
    }

    /// The live session of a valid refresh token, its user (with its identities when
    /// `identities`) and the token's claims; `markingUse` marks the session used (a refresh,
    /// ``SessionStore/refreshSession(id:digest:now:due:identities:)``).
    private func refreshTokenSession(
        _ token: String, identities: Bool = false, markingUse: Bool = false
    ) async throws -> (AppRuntime, SessionRecord, UserRecord, IssuedTokenClaims) {
        let claims = try await tokens.verify(token, as: .refresh)
        guard let appId = claims.baas_domain_id, let app = apps[appId] else {
            throw ServiceError(.invalidSession, "invalid session: token of an unknown app")
        }
        let digest = Secrets.digest(token)
        let now = clock.now
        guard let sessionId = claims.session,
            let (session, user) =
                markingUse
                ? try await store.refreshSession(
                    id: sessionId, digest: digest, now: now, due: now - Self.lastUsedGranularity, identities: identities)
                : try await store.sessionWithUser(id: sessionId, identities: identities),
            session.appId == app.id
        else {
            throw ServiceError(.invalidSession, "invalid session: failed to find refresh token")
        }
        switch session.refresh(digest: digest, now: now, user: user) {
        case .otherToken: throw ServiceError(.invalidSession, "invalid session: failed to find refresh token")
        case .expired: throw ServiceError(.invalidSession, "invalid session: refresh token expired")
        case .userDisabled:
            AuditTrail.user(user.id, app: app.id)
            throw ServiceError(.userDisabled, "user is disabled")
        case .answered:
            AuditTrail.user(user.id, app: app.id)
            return (app, session, user, claims)
        }
    }

    /// Refuses with 401 `RequiresRecentLogin` when the app wants a login at most
    /// `recentLoginSeconds` old and the caller's is older (or unknown).
    func requireRecentLogin(_ caller: Caller) throws(ServiceError) {
        try requireRecentLogin(app: caller.app, authTime: caller.authTime)
    }

    /// ``requireRecentLogin(_:)`` for a login at `authTime` (another API's token says when).
    func requireRecentLogin(app: AppRuntime, authTime: Int64?) throws(ServiceError) {
        if let limit = app.config.recentLoginSeconds, clock.now - (authTime ?? 0) > limit {
            throw ServiceError(
                .requiresRecentLogin,
                "this needs a recent login (within \(limit) s): log in again, then retry")
        }
    }

    /// How old a login may be to change second factors or passkeys when the app sets no
    /// `recentLoginSeconds`.
    static let factorLoginAge: Int64 = 600

    /// Refuses with 401 `RequiresRecentLogin` unless the caller may change their second
    /// factors and passkeys: their login is recent (the app's `recentLoginSeconds`, else
    /// ``factorLoginAge``) and, with `needingSecondFactor` for a user with a confirmed second
    /// factor, used one (`amr` holds `mfa`).
    func requireFactorChange(_ caller: Caller, needingSecondFactor: Bool) async throws {
        try checkRecent(authTime: caller.authTime, app: caller.app, doing: "changing second factors")
        if needingSecondFactor, try await hasSecondFactor(caller.userId) { try checkUsedSecondFactor(caller.methods) }
    }

    /// Refuses with 401 `RequiresRecentLogin` unless the caller may make (or enable) an API
    /// key. An API key logs in with no second factor, so for a user with one it takes what
    /// removing that factor takes: a recent login (as ``requireFactorChange(_:needingSecondFactor:)``)
    /// that used it. Any live session of a user with no second factor may (App Services' rule).
    func requireAPIKeyMaker(_ caller: SessionCaller) async throws {
        if try await hasSecondFactor(caller.user.id) {
            try checkRecent(
                authTime: caller.session.createdAt, app: caller.app, doing: "making an API key for a user with a second factor")
            try checkUsedSecondFactor(caller.claims.amr)
        }
    }

    private func hasSecondFactor(_ userId: String) async throws -> Bool {
        try await store.secondFactors(userId: userId).any
    }

    /// 401 `RequiresRecentLogin` unless the login at `authTime` is at most the app's
    /// `recentLoginSeconds` (else ``factorLoginAge``) old.
    private func checkRecent(authTime: Int64?, app: AppRuntime, doing: String) throws(ServiceError) {
        let limit = app.config.recentLoginSeconds ?? Self.factorLoginAge
        if clock.now - (authTime ?? 0) > limit {
            throw ServiceError(.requiresRecentLogin, "\(doing) needs a recent login (within \(limit) s): log in again, then retry")
        }
    }

    /// 401 `RequiresRecentLogin` unless `amr` says the login used a second factor.
    private func checkUsedSecondFactor(_ amr: [String]?) throws(ServiceError) {
        guard (amr ?? []).contains(AuthenticationMethods.multipleFactors) else {
            throw ServiceError(
                .requiresRecentLogin, "this needs a login that used the second factor: log in again with your code, then retry")
        }
    }
}
