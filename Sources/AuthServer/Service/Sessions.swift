import AuthProtocol

/// Sessions and the tokens that stand for them.
extension AuthService {
    /// The tokens of a new session.
    struct Tokens {
        var access: String
        var refresh: String
        var deviceId: String
    }

    /// Starts a session for `user`, logged in through `identity`.
    func startSession(
        app: AppRuntime, user: UserRecord, providerType: String, identityId: String,
        deviceId: String
    ) async throws -> Tokens {
        let config = app.config
        let now = clock.now
        let sessionId = newId()
        let anonymous = user.isAnonymous
        let refreshExp = now + (anonymous ? Self.noExpiry : config.refreshTokenLifetimeSeconds)
        let refresh = try await tokens.sign(
            RefreshTokenClaims(
                exp: refreshExp, iat: now, sub: user.id, session: sessionId,
                identity: .init(id: identityId, providerType: providerType, providerId: app.providerId(providerType)),
                deviceId: deviceId, appId: app.id))
        try await store.insertSession(
            SessionRecord(
                id: sessionId, appId: app.id, userId: user.id, deviceId: deviceId, providerType: providerType,
                identityId: identityId, refreshDigest: Secrets.digest(refresh), createdAt: now,
                expiresAt: anonymous ? nil : refreshExp))
        let access = try await accessToken(app: config, user: user, session: sessionId, deviceId: deviceId, authTime: now)
        return Tokens(access: access, refresh: refresh, deviceId: deviceId)
    }

    /// An access token of `session`; `authTime` is when the session's login happened.
    func accessToken(
        app: AppConfiguration, user: UserRecord, session: String, deviceId: String,
        authTime: Int64?
    ) async throws -> String {
        let now = clock.now
        return try await tokens.sign(
            AccessTokenClaims(
                exp: now + app.accessTokenLifetimeSeconds, iat: now, sub: user.id, session: session, deviceId: deviceId,
                appId: app.id, userData: user.customData, authTime: authTime))
    }

    /// `POST /auth/session`: a new access token for a live session. The session's `last_used`
    /// is written when it is older than ``lastUsedGranularity`` (a client refreshing often
    /// costs one write a minute, not one per refresh).
    func refresh(_ refreshToken: String) async throws -> String {
        let (app, session, user) = try await sessionOfRefreshToken(refreshToken)
        let now = clock.now
        if now - (session.lastUsed ?? session.createdAt) >= Self.lastUsedGranularity {
            try await store.touchSession(id: session.id, at: now)
        }
        return try await accessToken(
            app: app.config, user: user, session: session.id, deviceId: session.deviceId,
            authTime: session.createdAt)
    }

    /// How precise a session's `last_used` is, in seconds.
    static let lastUsedGranularity: Int64 = 60

    /// The user of a valid access token (profile, delete, link), with its identities; when
    /// `expected` is given, the token must be one of that app (the app of the route).
    func userOfAccessToken(_ token: String, in expected: AppRuntime? = nil) async throws -> (AppRuntime, UserRecord, IssuedTokenClaims) {
        let claims = try await tokens.verify(token, as: .access)
        guard let appId = claims.baas_domain_id, let app = apps[appId] else {
            throw ServiceError(.invalidSession, "invalid session: token of an unknown app")
        }
        if let expected, expected.id != app.id {
            throw ServiceError(.invalidSession, "invalid session: token of another app")
        }
        try await checkLive(claims, app: app)
        guard let user = try await store.user(id: claims.sub, app: app.id) else {
            throw ServiceError(.invalidSession, "invalid session: user not found")
        }
        AuditTrail.user(user.id, app: app.id)
        return (app, user, claims)
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

    /// Deletes anonymous users created more than ``anonymousLifetime`` ago (docs/protocol/wire-protocol.md
    /// section 7: an anonymous account lives 90 days), and what else the store keeps only for
    /// a while: pending credentials a day past their expiry, expired sign-ins, failed-password
    /// counts an hour old, delivered or given-up mail a week old, audit events past
    /// `auditRetentionDays`. Runs every hour and after the dev clock moves; each step on its
    /// own, so one that fails (logged, retried at the next sweep) does not hold up the others.
    func sweepAnonymousUsers() async {
        let now = clock.now
        let steps: [(String, @Sendable () async throws -> Int)] = [
            ("anonymous users", { [store] in try await store.deleteAnonymousUsers(createdBefore: now - Self.anonymousLifetime) }),
            // Kept a day past their expiry, so that a late link is told "expired", not "unknown".
            ("pending credentials", { [store] in try await store.deleteExpiredPendingCredentials(at: now - 86_400) }),
            ("sign-ins", { [store] in try await store.deleteExpiredSignIns(at: now) }),
            ("failed-password counts", { [store] in try await store.deleteLoginFailures(lastBefore: now - LoginBackoff.memory) }),
            ("finished mail", { [store] in try await store.deleteFinishedMail(before: now - 7 * 86_400) }),
            ("audit events", { [store, auditRetention] in try await store.deleteAuditEvents(before: now - auditRetention) }),
        ]
        for (what, step) in steps {
            do {
                let deleted = try await step()
                if deleted > 0 { logger.info("swept", metadata: ["step": "\(what)", "count": "\(deleted)"]) }
            } catch {
                logger.error("sweep failed", metadata: ["step": "\(what)", "error": "\(error)"])
            }
        }
    }

    /// The live session of a valid refresh token (refresh, logout, API keys). The user comes
    /// without identities unless `identities`.
    func sessionOfRefreshToken(_ token: String, identities: Bool = false) async throws -> (AppRuntime, SessionRecord, UserRecord) {
        let claims = try await tokens.verify(token, as: .refresh)
        guard let appId = claims.baas_domain_id, let app = apps[appId] else {
            throw ServiceError(.invalidSession, "invalid session: token of an unknown app")
        }
        guard let sessionId = claims.session, let (session, user) = try await store.sessionWithUser(id: sessionId, identities: identities),
            session.appId == app.id, Secrets.constantTimeEqual(session.refreshDigest, Secrets.digest(token))
        else {
            throw ServiceError(.invalidSession, "invalid session: failed to find refresh token")
        }
        if let expires = session.expiresAt, expires <= clock.now {
            throw ServiceError(.invalidSession, "invalid session: refresh token expired")
        }
        AuditTrail.user(user.id, app: app.id)
        guard !user.disabled else { throw ServiceError(.userDisabled, "user is disabled") }
        return (app, session, user)
    }
}
