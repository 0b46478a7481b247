// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Logging in and linking: credentials become an identity, the identity a user.
struct LoginService {
    let store: any UserStore & PendingCredentialStore & APIKeyStore & SecondFactorStore
    let clock: ServerClock
    let sessions: SessionService
    let passwords: Passwords
    let abuse: AbuseControls
    let functions: PluginFunctions
    let hooks: AuthHooks
    /// Runs the triggers whose runs a login writes.
    let triggers: TriggerRunner
    /// Sign-ins under way in the browser flows, and their login codes.
    let flows: OAuthFlows
    /// Logins waiting for their second factor.
    let mfa: MFALogin
    /// Passkey logins.
    let passkeys: PasskeyService

    /// Who the credentials prove the caller to be.
    struct Proof: Sendable {
        var identity: IdentityRecord
        /// Set when the credential already names its user (API keys log in as their owner).
        var owner: String?
        /// The id a new user gets, when the credential names it (a Firebase custom token's
        /// `uid`); nil: a fresh one.
        var newUserId: String? = nil
        /// Fields merged into the profile `data` of the user.
        var profile: EJSONDocument = [:]
        /// The custom data a new user starts with (a migrated user's, ``passwordProof(app:email:password:address:)``).
        var customData: EJSONDocument? = nil
        /// The IdP's tokens, added to the answer when the provider has `returnProviderTokens`.
        var providerTokens: EJSONDocument = [:]
        /// How it proved it (``AuthenticationMethods``), when not the provider's default.
        var methods: [String]? = nil
        /// No second factor is asked for: an API key (its owner made it while logged in, for
        /// programs that cannot type a code), a passkey whose authenticator verified the user.
        var skipsSecondFactor = false
        /// Claims every token of the session carries (a Firebase custom token's `claims`).
        var sessionClaims: EJSONDocument? = nil

        /// How it proved it: ``methods``, else the provider's default.
        var provenMethods: [String] { methods ?? AuthenticationMethods.firstFactor(identity.providerType) }
    }

    /// `POST {app}/auth/providers/{provider}/login[?link=true]`: a login with the provider's
    /// `credentials` (the fields its login takes), or with `linking`, the identity they prove
    /// added to that caller.
    func login(app: AppRuntime, provider: String, credentials body: InputFields, linking: Caller?, address: String) async throws -> EJSON {
        if let pending = try body.optionalString("pendingCredential") {
            guard let linking else {
                throw ServiceError(
                    .invalidParameter,
                    "a pendingCredential is only linked (?link=true): sign in as the account "
                        + "that holds its email, then link it")
            }
            return try await linkPending(pending, provider: provider, caller: linking)
        }
        if provider == MFALogin.provider {
            let (pending, method) = try await mfa.complete(body, app: app, address: address)
            return try await finish(
                pending.proof, app: app, deviceId: pending.deviceId, linking: nil, address: address,
                completing: (pending.userId, method))
        }
        let proof: Proof
        if let loginCode = try body.optionalString("loginCode") {
            try await abuse.checkRate(.token, app: app, address: address)
            proof = try await flows.redeem(loginCode, verifier: try body.string("codeVerifier"), app: app.id, provider: provider, now: clock.now)
        } else {
            proof = try await authenticate(app: app, provider: provider, body: body, address: address)
        }
        return try await finish(proof, app: app, deviceId: deviceId(body), linking: linking, address: address)
    }

    /// Logs in the user of `proof` (making one for a new identity), or links the identity to
    /// the `linking` caller; the login answer. The app's hooks run before anything is
    /// written (``AuthHooks``): `beforeUserCreated` for a new user, then `beforeLogin`.
    ///
    /// A returning user with a second factor gets `MFARequired` instead (``MFALogin``), unless
    /// this is the login `completing` that user's second step (with that method), or the proof
    /// skips it (``Proof/skipsSecondFactor``).
    func finish(
        _ proof: Proof, app: AppRuntime, deviceId: String, linking: Caller?, address: String,
        completing: (userId: String, method: String)? = nil
    ) async throws -> EJSON {
        if let linking {
            return try await link(proof, caller: linking)
        }
        let done = try await logIn(proof, app: app, deviceId: deviceId, address: address, completing: completing)
        let user = done.user
        var answer: EJSONDocument = [
            "access_token": .string(done.tokens.access), "refresh_token": .string(done.tokens.refresh),
            "user_id": .string(user.id), "device_id": .string(done.tokens.deviceId),
            // authsh adds the profile (GET auth/profile's body), saving a
            // client the second request of a login; App Services clients
            // ignore it.
            "profile": user.profile(app: app),
        ]
        for (key, value) in proof.providerTokens { answer[key] = value }
        return .document(answer)
    }

    /// A login done: its user as written, its session's tokens, the extra claims of its
    /// tokens (the app's `accessTokenClaims` hook), and whether the user is new.
    struct LoggedIn: Sendable {
        var user: UserRecord
        var tokens: SessionService.Tokens
        var claims: EJSONDocument
        var methods: [String]
        var isNew: Bool
        /// The proof's ``Proof/sessionClaims``, kept with the session.
        var sessionClaims: EJSONDocument? = nil
    }

    /// Logs in the user of `proof`, making one for a new identity (the rules of
    /// ``finish(_:app:deviceId:linking:address:completing:)``, whichever API asked).
    func logIn(
        _ proof: Proof, app: AppRuntime, deviceId: String, address: String,
        completing: (userId: String, method: String)? = nil
    ) async throws -> LoggedIn {

        var user: UserRecord
        var isNew = false
        /// A user the app's `migrateIdentity` hook named, which the new identity joins.
        var joining = false
        if let owner = proof.owner {
            guard let u = try await store.user(id: owner, app: app.id) else { throw ServiceError(.authError, "invalid API key") }
            user = u
        } else if proof.identity.providerType != ProviderType.anonymous,
            let u = try await store.user(
                app: app.id, providerType: proof.identity.providerType,
                externalId: proof.identity.externalId)
        {
            user = u
        } else {
            // An identity no user has: the app's `migrateIdentity` hook may name the old
            // system's user (its id, profile and custom data).
            let migrated = try await migratedIdentity(proof, app: app, address: address)
            if let id = migrated?.id, let holder = try await store.user(id: id, app: app.id) {
                // That user is here already (imported without this identity): the identity joins it.
                user = holder
                user.identities.append(proof.identity)
                joining = true
            } else {
                if app.config.oneAccountPerEmail, let email = proof.identity.email,
                    let holder = try await store.emailHolder(
                        app: app.id, email: email,
                        accounts: proof.identity.providerType != ProviderType.userpass
                            && Self.userpassVouches(app))
                {
                    throw try await accountExists(proof.identity, email: email, holder: holder, app: app)
                }
                var profile = proof.profile
                for (key, value) in migrated?.data ?? [:] where profile[key] == nil { profile[key] = value }
                user = UserRecord(
                    id: migrated?.id ?? proof.newUserId ?? clock.newId(), appId: app.id,
                    data: profile, createdAt: clock.now, identities: [proof.identity])
                user.customData = migrated?.customData ?? proof.customData
                isNew = true
            }
        }
        AuditTrail.provider(proof.identity.providerType)
        if !isNew { AuditTrail.user(user.id, app: app.id) }
        guard !user.disabled else { throw ServiceError(.userDisabled, "user is disabled") }
        if let completing, completing.userId != user.id || isNew {
            throw ServiceError(.invalidSession, "the identity of this login moved to another user: log in again")
        }
        if completing == nil, !isNew, !proof.skipsSecondFactor {
            let factors = try await store.secondFactors(userId: user.id)
            if !factors.usable.isEmpty {
                throw try await mfa.challenge(proof, userId: user.id, deviceId: deviceId, factors: factors, app: app)
            }
        }
        let first = proof.provenMethods
        let methods = completing.map { AuthenticationMethods.withSecondFactor(first, $0.method) } ?? first
        var login = AuthHooks.Login(user: user, identity: proof.identity, address: address, isNew: isNew)
        if isNew {
            user = try await hooks.beforeUserCreated(login, app: app)
            login.user = user
        }
        try await hooks.beforeLogin(login, app: app)
        // The claims before the user is written: a hook that refuses leaves nothing behind.
        let claims = try await hooks.accessTokenClaims(user: user, app: app)
        let providers = [proof.identity.providerType]
        if joining {
            try await storing(ServiceError(.invalidSession, "a user already exists with the specified provider")) {
                try await store.addIdentity(proof.identity, toUser: user.id, app: app.id, profile: user.data)
            }
        } else if !isNew && proof.owner == nil {
            try await noteEmail(of: proof.identity, in: user, app: app)
            // The user as the login leaves it (its tokens show the email as it is now).
            for i in user.identities.indices
            where user.identities[i].providerType == proof.identity.providerType
                && user.identities[i].externalId == proof.identity.externalId
            {
                user.identities[i].email = proof.identity.email
            }
        }
        // A new user is written with its session, in one transaction (its create runs first).
        let created = isNew ? TriggerRunner.runs(of: .create, user: user, providers: providers, app: app, clock: clock) : nil
        let loggedIn = TriggerRunner.runs(of: .login, user: user, providers: providers, app: app, clock: clock)
        let tokens = try await storing(ServiceError(.invalidSession, "a user already exists with the specified provider")) {
            try await sessions.startSession(
                app: app, user: user, providerType: proof.identity.providerType,
                identityId: proof.identity.externalId, deviceId: deviceId, claims: claims, methods: methods,
                sessionClaims: proof.sessionClaims, events: loggedIn, creating: created)
        }
        if isNew { AuditTrail.user(user.id, app: app.id) }
        if !app.config.triggers.isEmpty { triggers.queued() }
        return LoggedIn(user: user, tokens: tokens, claims: claims, methods: methods, isNew: isNew, sessionClaims: proof.sessionClaims)
    }

    /// The app's `migrateIdentity` answer for the new identity of `proof`, when it asks one.
    private func migratedIdentity(_ proof: Proof, app: AppRuntime, address: String) async throws -> AuthHooks.MigratedIdentity? {
        guard app.config.hooks.migrateIdentity != nil, AuthHooks.asksMigrateIdentity(proof.identity.providerType) else { return nil }
        return try await hooks.migrateIdentity(proof.identity, address: address, app: app)
    }

    /// Adds the proven identity to `user`, the caller (docs/protocol/wire-protocol.md section 8).
    func link(_ proof: Proof, caller: Caller) async throws -> EJSON {
        let app = caller.app
        let type = proof.identity.providerType
        if type == ProviderType.anonymous {
            throw ServiceError(.internalServerError, "linking an anonymous identity is not allowed")
        }
        if type == PasskeyService.provider {
            throw ServiceError(.invalidParameter, "a passkey is not linked: register it (POST auth/passkeys)")
        }
        if proof.owner != nil {
            throw ServiceError(.invalidParameter, "linking an API key identity is not allowed")
        }
        let holder = try await store.userId(app: app.id, providerType: type, externalId: proof.identity.externalId)
        if let holder, holder != caller.userId {
            throw ServiceError(.invalidSession, "a user already exists with the specified provider")
        }
        let user = try await sessions.user(of: caller)
        if holder == nil {
            if type == ProviderType.userpass, user.identities.contains(where: { $0.providerType == ProviderType.userpass }) {
                throw ServiceError(
                    .internalServerError,
                    "linking a local-userpass identity is not allowed when one is already linked")
            }
            var profile = user.data
            for (key, value) in proof.profile { profile[key] = value }
            try await storing(ServiceError(.invalidSession, "a user already exists with the specified provider")) {
                try await store.addIdentity(proof.identity, toUser: user.id, app: app.id, profile: profile)
            }
        }
        let deviceId = caller.deviceId
        let access = try await sessions.accessToken(
            app: app, user: user, session: caller.sessionId, deviceId: deviceId,
            authTime: caller.authTime, methods: caller.methods)
        var answer: EJSONDocument = ["access_token": .string(access), "user_id": .string(user.id), "device_id": .string(deviceId)]
        for (key, value) in proof.providerTokens { answer[key] = value }
        return .document(answer)
    }

    /// Checks the credentials of one provider.
    private func authenticate(app: AppRuntime, provider: String, body: InputFields, address: String) async throws -> Proof {
        let config = app.config
        let providers = config.providers
        func identity(_ id: String, data: EJSONDocument = [:]) -> IdentityRecord {
            IdentityRecord(externalId: id, providerType: provider, providerId: app.providerId(provider), data: data)
        }
        switch provider {
        case ProviderType.anonymous where providers.anonymous:
            try await abuse.checkRate(.anonymous, app: app, address: address)
            return Proof(identity: identity(clock.newId()))
        case ProviderType.userpass where providers.userpass != nil:
            let email = try body.string("username")
            try await abuse.checkRate(.login, app: app, address: address)
            return try await passwordProof(app: app, email: email, password: try body.string("password"), address: address)
        case ProviderType.apiKey where providers.apiKey:
            let key = try body.string("key")
            try await abuse.checkRate(.login, app: app, address: address)
            guard let record = try await store.apiKey(app: app.id, digest: Secrets.digest(key)), !record.disabled else {
                throw ServiceError(.authError, "invalid API key")
            }
            return Proof(identity: identity(record.id), owner: record.userId, skipsSecondFactor: true)
        case ProviderType.customFunction:
            guard let f = providers.customFunction else { break }
            try await abuse.checkRate(.login, app: app, address: address)
            let (id, profile) = try await functions.customFunctionProof(app: app, name: f.authFunctionName, body: body)
            return Proof(identity: identity(id, data: profile), profile: profile)
        case ProviderType.customToken:
            guard let verifier = app.customToken else { break }
            try await abuse.checkRate(.login, app: app, address: address)
            let (sub, profile, email) = try await verifier.verify(try body.string("token"))
            var id = identity(sub, data: profile)
            id.email = email
            return Proof(identity: id, profile: profile)
        case PasskeyService.provider:
            try await abuse.checkRate(.login, app: app, address: address)
            return try await passkeys.verifyLogin(body, app: app)
        case let type where type.hasPrefix("oauth2-"):
            guard let oauth = app.oauth(type) else { break }
            try await abuse.checkRate(.login, app: app, address: address)
            return Self.proof(try await oauth.verify(body), provider: oauth, identity: identity)
        default:
            break
        }
        throw ServiceError(.authProviderNotFound, "authentication via '\(provider)' is unsupported")
    }

    /// The proof of an email/password account's login. A login needs a confirmed account: its
    /// email is verified unless anyone could confirm it, or the account logs in before its email
    /// is proven (Firebase's sign-up).
    /// The proof of an email and password: the account's, or the one the app's `migrateUser`
    /// hook brought in for an email no account had, with the profile and custom data it gave.
    func passwordProof(app: AppRuntime, email: String, password: String, address: String) async throws -> Proof {
        let hooks = self.hooks
        var migrate: (@Sendable (String, String) async throws -> Passwords.MigratedUser?)?
        if app.config.hooks.migrateUser != nil {
            migrate = { email, password in try await hooks.migrateUser(email: email, password: password, address: address, app: app) }
        }
        let (account, migrated) = try await passwords.check(app: app, email: email, password: password, address: address, migrate: migrate)
        var proof = Self.proof(of: account, app: app)
        if let migrated {
            for (key, value) in migrated.data where proof.profile[key] == nil { proof.profile[key] = value }
            proof.customData = migrated.customData
        }
        return proof
    }

    static func proof(of account: UserpassAccount, app: AppRuntime) -> Proof {
        var id = IdentityRecord(
            externalId: account.identityId, providerType: ProviderType.userpass, providerId: app.providerId(ProviderType.userpass),
            data: ["email": .string(account.email)])
        id.email = userpassVouches(app) && account.emailVerified ? Emails.vouched(account.email) : nil
        return Proof(identity: id, profile: ["email": .string(account.email)])
    }

    /// The proof of an IdP identity: its subject, its profile fields, and its tokens when
    /// the provider returns them.
    static func proof(
        _ v: OAuthProvider.Verified, provider: OAuthProvider,
        identity: (String, EJSONDocument) -> IdentityRecord
    ) -> Proof {
        var id = identity(v.subject, v.profile)
        id.email = v.emailVerified ? v.email.flatMap(Emails.vouched) : nil  // an unverified email never links or conflicts
        var proof = Proof(identity: id, profile: v.profile)
        if provider.config.returnProviderTokens {
            if let t = v.accessToken { proof.providerTokens["provider_access_token"] = .string(t) }
            if let t = v.idToken { proof.providerTokens["provider_id_token"] = .string(t) }
        }
        return proof
    }

    /// `options.device.deviceId` when it is a real id, else a new one.
    func deviceId(_ body: InputFields) -> String {
        // A client that writes canonical EJSON sends the id as `{"$oid": ...}`.
        switch body.document["options"]?["device"]?["deviceId"] {
        case .objectId(let id)?: return deviceId(id.hex)
        case .string(let s)?: return deviceId(s)
        default: return clock.newId()
        }
    }

    /// `id` when it is a real device id, else a new one.
    func deviceId(_ id: String?) -> String {
        if let id, let oid = ObjectId(hex: id), oid != .zero { return oid.hex }
        return clock.newId()
    }
}
