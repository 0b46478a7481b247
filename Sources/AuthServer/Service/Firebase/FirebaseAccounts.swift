// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// The Firebase Auth API's accounts (docs/server/firebase.md) on authsh's rules: a sign-up
/// or sign-in is a login of ``LoginService`` (hooks, triggers, second factors, rate limits and
/// back-off as for any login), its session the one a Firebase refresh token names, and its
/// user the same through either API.
struct FirebaseAccounts {
    let store: any UserpassStore & UserStore & SessionStore & SecondFactorStore
    let clock: ServerClock
    let login: LoginService
    let sessions: SessionService
    let passwords: Passwords
    let abuse: AbuseControls
    let idTokens: FirebaseIDTokens
    /// Runs the `DELETE` triggers a deletion queues.
    let triggers: TriggerRunner

    /// A login's answer.
    struct SignedIn: Sendable {
        var idToken: String
        var refreshToken: String
        var user: UserRecord
        var isNew: Bool
    }

    /// `accounts:signUp` with no credentials: a new anonymous user.
    func signUpAnonymously(project: FirebaseProjects.Project, address: String) async throws -> SignedIn {
        let app = project.app
        guard app.config.providers.anonymous else {
            throw FirebaseError.invalid("ADMIN_ONLY_OPERATION", "anonymous sign-in is off for this app")
        }
        try await abuse.checkRate(.anonymous, app: app, address: address)
        let identity = IdentityRecord(
            externalId: clock.newId(), providerType: ProviderType.anonymous, providerId: app.providerId(ProviderType.anonymous))
        return try await signIn(LoginService.Proof(identity: identity), project: project, address: address)
    }

    /// `accounts:signUp` with an email and a password: the account logs in at once, as
    /// Firebase's do, and its email is unproven until a mail proves it (it then vouches for
    /// nothing: no linking by email, no account conflict).
    func signUp(project: FirebaseProjects.Project, email: String, password: String, address: String) async throws -> SignedIn {
        let app = project.app
        let account = try await newAccount(email: email, password: password, app: app, address: address)
        do {
            return try await signIn(LoginService.proof(of: account, app: app), project: project, address: address)
        } catch {
            // A hook that refuses the new user leaves no account behind.
            try? await store.deleteUserpassAccount(app: app.id, email: email)
            throw error
        }
    }

    /// A new email/password account, its email unproven (Firebase's sign-up logs in before a
    /// mail proves it), written: `OPERATION_NOT_ALLOWED`, `INVALID_EMAIL`, `WEAK_PASSWORD`,
    /// `EMAIL_EXISTS` as Firebase answers them, after the sign-up rate limit.
    private func newAccount(email: String, password: String, app: AppRuntime, address: String) async throws -> UserpassAccount {
        guard app.config.providers.userpass != nil else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "email/password sign-in is off for this app")
        }
        do { try Emails.check(email) } catch { throw FirebaseError.invalid("INVALID_EMAIL") }
        guard (6...128).contains(password.count) else {
            throw FirebaseError.invalid(
                "WEAK_PASSWORD", password.count < 6 ? "Password should be at least 6 characters" : "Password should be at most 128 characters")
        }
        try await abuse.checkRate(.register, app: app, address: address)
        let account = UserpassAccount(
            appId: app.id, email: email, passwordHash: try await passwords.hasher.hash(password), identityId: clock.newId(),
            confirmed: true, createdAt: clock.now, emailVerified: false)
        do {
            try await store.insertUserpassAccount(account)
        } catch let error as StoreError where error.isConflict {
            throw FirebaseError.invalid("EMAIL_EXISTS")
        }
        return account
    }

    /// `accounts:signUp` with an `idToken`: an email/password identity added to the token's
    /// user (Firebase's link of an email credential, and how an anonymous user is upgraded),
    /// its email unproven as at sign-up. The user signs in anew with it: a new session (the
    /// refresh token of the old one ends), as Firebase gives new tokens.
    func link(idToken: String, email: String, password: String, project: FirebaseProjects.Project, address: String) async throws
        -> SignedIn
    {
        let app = project.app
        let (token, user) = try await holder(idToken: idToken, project: project)
        guard !user.identities.contains(where: { $0.providerType == ProviderType.userpass }) else {
            throw FirebaseError.invalid("PROVIDER_ALREADY_LINKED")
        }
        let account = try await newAccount(email: email, password: password, app: app, address: address)
        let proof = LoginService.proof(of: account, app: app)
        var profile = user.data
        for (key, value) in proof.profile { profile[key] = value }
        do {
            try await store.addIdentity(proof.identity, toUser: user.id, app: app.id, profile: profile)
        } catch {
            try? await store.deleteUserpassAccount(app: app.id, email: email)
            throw error
        }
        return try await signInAnew(
            user.id, providerType: ProviderType.userpass, identityId: account.identityId, methods: proof.provenMethods,
            ending: token.sessionId, project: project)
    }

    /// Adds the proven identity to the user of `idToken`, who signs in anew with it (a new
    /// session, as after Firebase's link). `FEDERATED_USER_ID_ALREADY_LINKED` when another
    /// user holds it; with `oneAccountPerEmail`, `EMAIL_EXISTS` when the email it vouches for
    /// is another user's.
    func link(_ proof: LoginService.Proof, to idToken: String, project: FirebaseProjects.Project) async throws -> SignedIn {
        let app = project.app
        let (token, user) = try await holder(idToken: idToken, project: project)
        let identity = proof.identity
        let holder = try await store.userId(app: app.id, providerType: identity.providerType, externalId: identity.externalId)
        if let holder, holder != user.id { throw FirebaseError.invalid("FEDERATED_USER_ID_ALREADY_LINKED") }
        if holder == nil, app.config.oneAccountPerEmail, let email = identity.email,
            let owner = try await store.emailHolder(app: app.id, email: email, accounts: LoginService.userpassVouches(app)),
            owner.userId != user.id
        {
            throw FirebaseError.invalid("EMAIL_EXISTS")
        }
        if holder == nil {
            var profile = user.data
            for (key, value) in proof.profile where profile[key] == nil { profile[key] = value }
            do {
                try await store.addIdentity(identity, toUser: user.id, app: app.id, profile: profile)
            } catch let error as StoreError where error.isConflict {
                throw FirebaseError.invalid("FEDERATED_USER_ID_ALREADY_LINKED")
            }
        }
        return try await signInAnew(
            user.id, providerType: identity.providerType, identityId: identity.externalId, methods: proof.provenMethods,
            ending: token.sessionId, project: project)
    }

    /// The user signs in anew, in a new session that `providerType`'s identity opened with
    /// `methods`, and the session `ending` ends: what Firebase answers a link or a change of
    /// second factors with (new tokens; its clients keep the refresh token of the answer).
    func signInAnew(
        _ userId: String, providerType: String, identityId: String, methods: [String], ending: String, project: FirebaseProjects.Project
    ) async throws -> SignedIn {
        let app = project.app
        guard let user = try await store.user(id: userId, app: app.id) else { throw FirebaseError.invalid("USER_NOT_FOUND") }
        let claims = try await sessions.hooks.accessTokenClaims(user: user, app: app)
        // The claims of the session's login (a custom token's) go on with the new one.
        let kept = try await store.sessionWithUser(id: ending, identities: false)?.0.claims
        let tokens = try await sessions.startSession(
            app: app, user: user, providerType: providerType, identityId: identityId, deviceId: clock.newId(), claims: claims,
            methods: methods, sessionClaims: kept)
        try await store.deleteSession(id: ending)
        let idToken = try await idTokens.make(
            project: project, user: user, session: tokens.session, providerType: providerType, authTime: clock.now, methods: methods,
            sessionClaims: kept, extra: claims)
        return SignedIn(idToken: idToken, refreshToken: tokens.refresh, user: user, isNew: false)
    }

    /// ``signInAnew(_:providerType:identityId:methods:ending:project:)`` in place of the ID
    /// token's session, as that session's login (its identity and its methods).
    func renew(_ token: FirebaseIDTokens.Verified, user: UserRecord, project: FirebaseProjects.Project) async throws -> SignedIn {
        guard let (session, _) = try await store.sessionWithUser(id: token.sessionId, identities: false) else {
            throw FirebaseError.invalid("INVALID_ID_TOKEN")
        }
        return try await signInAnew(
            user.id, providerType: session.providerType, identityId: session.identityId, methods: session.methods,
            ending: session.id, project: project)
    }

    /// `accounts:signInWithPassword`. Either failure, an unknown email or a wrong password, is
    /// `INVALID_LOGIN_CREDENTIALS`: Firebase's answer with email enumeration protection (on by
    /// default for its projects since 2023), and authsh's rule for every app.
    func signIn(project: FirebaseProjects.Project, email: String, password: String, address: String) async throws -> SignedIn {
        let app = project.app
        guard app.config.providers.userpass != nil else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "email/password sign-in is off for this app")
        }
        try await abuse.checkRate(.login, app: app, address: address)
        let proof: LoginService.Proof
        do {
            proof = try await login.passwordProof(app: app, email: email, password: password, address: address)
        } catch let error as ServiceError where error.code == .invalidPassword {
            AuditTrail.event("password_failed")
            throw FirebaseError.invalid("INVALID_LOGIN_CREDENTIALS")
        } catch let error as ServiceError where error.code == .authError {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "this account confirms its email before it signs in")
        }
        return try await signIn(proof, project: project, address: address)
    }

    /// The audience of the Admin SDKs' custom tokens.
    static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// `accounts:signInWithCustomToken`: the user of a custom token's `uid`: the user holding
    /// that `custom-token` identity (the one authsh's custom JWTs give too), else the user whose
    /// id it is, else a new user with that id. A token signed by a service account the app lists
    /// (``FirebaseCustomTokens``); in dev mode also the Admin SDKs' emulator-mode tokens
    /// (unsigned). The token's `claims` reach every ID token of the session it opens.
    func signIn(customToken token: String, project: FirebaseProjects.Project, address: String) async throws -> SignedIn {
        guard let parts = JWTParts(token) else { throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN") }
        let uid: String
        let tokenClaims: EJSONDocument?
        if parts.isUnsigned {
            guard idTokens.dev else {
                throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "unsigned custom tokens (the emulator's) are taken in dev mode only")
            }
            let claims = parts.claims
            guard claims["aud"]?.stringValue == Self.customTokenAudience else {
                throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "its audience is not the Identity Toolkit's")
            }
            guard let id = claims["uid"]?.stringValue, FirebaseIdentities.isValidUid(id) else {
                throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "its uid must be 1 to 128 bytes without control characters")
            }
            if let exp = claims["exp"]?.integerValue, exp <= clock.now { throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "it expired") }
            uid = id
            tokenClaims = try FirebaseClaims.ofCustomToken(claims["claims"])
        } else {
            (uid, tokenClaims) = try await FirebaseCustomTokens.verified(
                token, accounts: project.app.config.firebase?.serviceAccounts ?? [], now: clock.now)
        }
        let app = project.app
        try await abuse.checkRate(.login, app: app, address: address)
        let identity = IdentityRecord(
            externalId: uid, providerType: ProviderType.customToken, providerId: app.providerId(ProviderType.customToken))
        // The uid is the user's id, as Firebase has it: the user of that id (one the Admin
        // API made, or any other) when no user holds the identity yet, else a new user of it.
        var proof = LoginService.Proof(identity: identity)
        proof.sessionClaims = tokenClaims
        if try await store.userId(app: app.id, providerType: ProviderType.customToken, externalId: uid) == nil {
            if try await store.user(id: uid, app: app.id) != nil { proof.owner = uid } else { proof.newUserId = uid }
        }
        return try await signIn(proof, project: project, address: address)
    }

    /// Logs in the user of `proof` and makes its Firebase tokens. A user with a TOTP factor gets
    /// none: ``FirebaseMFARequired`` carries the pending credential its second step
    /// (``FirebaseSecondFactors``) completes.
    func signIn(_ proof: LoginService.Proof, project: FirebaseProjects.Project, address: String) async throws -> SignedIn {
        let done: LoginService.LoggedIn
        do {
            done = try await login.logIn(proof, app: project.app, deviceId: clock.newId(), address: address)
        } catch let error as ServiceError where error.code == .mfaRequired {
            throw try await mfaRequired(error, proof: proof, app: project.app)
        } catch let error as ServiceError where error.code == .authError && error.message == MFALogin.sameKindOnly {
            throw FirebaseError.invalid("UNSUPPORTED_FIRST_FACTOR", "MFA is not available for the given first factor.")
        }
        return try await signedIn(done, providerType: proof.identity.providerType, project: project)
    }

    /// The Firebase tokens of a login done.
    func signedIn(_ done: LoginService.LoggedIn, providerType: String, project: FirebaseProjects.Project) async throws -> SignedIn {
        let idToken = try await idTokens.make(
            project: project, user: done.user, session: done.tokens.session, providerType: providerType, authTime: clock.now,
            methods: done.methods, sessionClaims: done.sessionClaims, extra: done.claims)
        return SignedIn(idToken: idToken, refreshToken: done.tokens.refresh, user: done.user, isNew: done.isNew)
    }

    /// Firebase's answer to a login that waits for its second factor: the `mfaToken` as the
    /// pending credential, the user's TOTP and phone factors as `mfaInfo` (numbers obscured).
    /// A user whose only usable factor here would be a passkey or a recovery code is told to
    /// sign in through the App Services API.
    private func mfaRequired(_ error: ServiceError, proof: LoginService.Proof, app: AppRuntime) async throws -> Error {
        let usable = error.details["factors"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard usable.contains("totp") || usable.contains("phone"), let token = error.details["mfaToken"]?.stringValue else {
            return FirebaseError.invalid(
                "OPERATION_NOT_ALLOWED", "this user's second factors are neither TOTP nor a phone: sign in through the App Services API")
        }
        let identity = proof.identity
        var userId = proof.owner
        if userId == nil { userId = try await store.userId(app: app.id, providerType: identity.providerType, externalId: identity.externalId) }
        var info: [EJSON] = []
        if let userId {
            // Only the factors this step may take (never a phone after a phone sign-in).
            info = FirebaseSecondFactors.mfaInfo(try await store.secondFactors(userId: userId), obscured: true).filter { factor in
                factor["phoneInfo"] != nil ? usable.contains("phone") : usable.contains("totp")
            }
        }
        return FirebaseMFARequired(pendingCredential: token, mfaInfo: info, localId: userId)
    }

    /// The user of an ID token whose session is live and whose user is enabled (`lookup`).
    func user(idToken: String, project: FirebaseProjects.Project) async throws -> UserRecord {
        try await holder(idToken: idToken, project: project).user
    }

    /// An ID token's checked claims and its user, whose session is live and who is enabled.
    func holder(idToken: String, project: FirebaseProjects.Project) async throws -> (
        token: FirebaseIDTokens.Verified, user: UserRecord
    ) {
        let verified = try await idTokens.verify(idToken, project: project)
        guard let state = try await store.sessionState(id: verified.sessionId), state.appId == project.app.id,
            state.userId == verified.userId
        else { throw FirebaseError.invalid("INVALID_ID_TOKEN") }
        guard !state.userDisabled else { throw FirebaseError.invalid("USER_DISABLED") }
        guard let user = try await store.user(id: verified.userId, app: project.app.id) else {
            throw FirebaseError.invalid("USER_NOT_FOUND")
        }
        AuditTrail.user(user.id, app: project.app.id)
        var token = verified
        token.methods = state.methods
        return (token, user)
    }

    /// Refuses with `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` when the app wants a recent login
    /// (`recentLoginSeconds`) and the token's is older.
    func requireRecentLogin(_ token: FirebaseIDTokens.Verified, project: FirebaseProjects.Project) throws(FirebaseError) {
        do {
            try sessions.requireRecentLogin(app: project.app, authTime: token.claims["auth_time"]?.integerValue)
        } catch {
            throw FirebaseError.invalid("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        }
    }

    /// `accounts:delete`: the token's user, with everything of theirs (a recent login when the
    /// app wants one).
    func delete(idToken: String, project: FirebaseProjects.Project) async throws {
        let (token, user) = try await holder(idToken: idToken, project: project)
        try requireRecentLogin(token, project: project)
        try await triggers.deleteUser(user, app: project.app)
    }

    /// What `accounts:update` changes (nil: unchanged).
    struct Update: Sendable {
        /// The display name and photo URL (the profile's `name` and `picture_url`).
        var displayName: String?
        var photoUrl: String?
        /// `DISPLAY_NAME`, `PHOTO_URL`: removed.
        var deleteAttributes: [String] = []
        var password: String?
        /// Firebase's provider ids to unlink (`password`, `google.com`, ...).
        var deleteProviders: [String] = []
        /// A new email for the user's email/password account, unproven.
        var email: String?
    }

    /// `accounts:update`: the profile, the email and the password (every other session of the
    /// user ends; a recent login when the app wants one) and unlinking. The user after it, and
    /// the email it had when the change moved it to another.
    func update(idToken: String, _ update: Update, project: FirebaseProjects.Project, address: String) async throws -> (
        user: UserRecord, movedFrom: String?
    ) {
        let (token, user) = try await holder(idToken: idToken, project: project)
        if update.password != nil || update.email != nil { try requireRecentLogin(token, project: project) }
        if update.email != nil, project.app.config.emailEnumerationProtection {
            // Firebase's rule: with the protection on, a new email is proven before it is set.
            throw FirebaseError.invalid(
                "OPERATION_NOT_ALLOWED", "email enumeration protection is on: change the email with sendOobCode VERIFY_AND_CHANGE_EMAIL")
        }
        let before = update.email == nil ? nil : try await userpassAccount(of: user, app: project.app)?.email
        let after = try await apply(update, to: user, app: project.app, keepSession: token.sessionId)
        let moved = try await userpassAccount(of: after, app: project.app)?.email
        return (after, before != moved ? before : nil)
    }

    /// The changes a user's `accounts:update` and the Admin API's both make: the email and the
    /// password (every session of the user ends but `keepSession`), the profile and unlinking.
    /// The user after them.
    func apply(_ update: Update, to user: UserRecord, app: AppRuntime, keepSession: String) async throws -> UserRecord {
        var user = user
        if let password = update.password, !(6...128).contains(password.count) {
            throw FirebaseError.invalid("WEAK_PASSWORD", "Password should be at least 6 characters")
        }
        if let email = update.email {
            try await moveEmail(of: user, to: email, verified: false, app: app, keepSession: keepSession)
            if let fresh = try await store.user(id: user.id, app: app.id) { user = fresh }
        }
        if update.displayName != nil || update.photoUrl != nil || !update.deleteAttributes.isEmpty {
            var data = user.data
            for attribute in update.deleteAttributes {
                switch attribute {
                case "DISPLAY_NAME": data["name"] = nil
                case "PHOTO_URL": data["picture_url"] = nil
                default: throw FirebaseError.invalid("INVALID_ARGUMENT", "deleteAttribute takes DISPLAY_NAME and PHOTO_URL")
                }
            }
            if let name = update.displayName { data["name"] = .string(name) }
            if let url = update.photoUrl { data["picture_url"] = .string(url) }
            if let problem = CustomDataLimits.problem(data) { throw FirebaseError.invalid("INVALID_ARGUMENT", problem) }
            guard try await store.setUserData(data, userId: user.id, app: app.id) else { throw FirebaseError.invalid("USER_NOT_FOUND") }
            user.data = data
        }
        if let password = update.password {
            guard (6...128).contains(password.count) else {
                throw FirebaseError.invalid("WEAK_PASSWORD", "Password should be at least 6 characters")
            }
            guard let account = try await userpassAccount(of: user, app: app) else {
                throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "the user has no email/password identity")
            }
            let hash = try await passwords.hasher.hash(password)
            try await store.changePassword(app: app.id, email: account.email, hash: hash, keepSession: keepSession)
        }
        for provider in update.deleteProviders {
            for identity in user.identities where FirebaseIdentities.providerId(identity.providerType) == provider {
                switch try await store.removeIdentity(
                    app: app.id, userId: user.id, providerType: identity.providerType, externalId: identity.externalId)
                {
                case .lastIdentity:
                    throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "cannot unlink the user's only identity: link another one first")
                case .notFound, .removed: break
                }
            }
        }
        if !update.deleteProviders.isEmpty, let fresh = try await store.user(id: user.id, app: app.id) { user = fresh }
        return user
    }

    /// Moves the user's email/password account to `email` (``UserpassStore/changeEmail(app:from:to:verified:vouched:keepSession:)``):
    /// `INVALID_EMAIL`, `EMAIL_EXISTS`, or `OPERATION_NOT_ALLOWED` for a user without such an
    /// account (its email is its identity's). The same email is no change.
    func moveEmail(of user: UserRecord, to email: String, verified: Bool, app: AppRuntime, keepSession: String?) async throws {
        do { try Emails.check(email) } catch { throw FirebaseError.invalid("INVALID_EMAIL") }
        guard let account = try await userpassAccount(of: user, app: app) else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "the user has no email/password identity whose email could change")
        }
        try await moveEmail(from: account.email, to: email, verified: verified, app: app, keepSession: keepSession)
    }

    /// Moves the email/password account of `from` to `to`; `INVALID_OOB_CODE` when none has `from`.
    func moveEmail(from: String, to email: String, verified: Bool, app: AppRuntime, keepSession: String?) async throws {
        guard from != email else { return }
        let vouched = verified && LoginService.userpassVouches(app) ? Emails.vouched(email) : nil
        switch try await store.changeEmail(app: app.id, from: from, to: email, verified: verified, vouched: vouched, keepSession: keepSession) {
        case .changed: break
        case .taken: throw FirebaseError.invalid("EMAIL_EXISTS")
        case .notFound: throw FirebaseError.invalid("INVALID_OOB_CODE")
        }
    }

    /// The email/password account of the user's `local-userpass` identity, if it has one.
    func userpassAccount(of user: UserRecord, app: AppRuntime) async throws -> UserpassAccount? {
        guard let identity = user.identities.first(where: { $0.providerType == ProviderType.userpass }) else { return nil }
        return try await store.userpassAccount(app: app.id, identityId: identity.externalId)
    }

    /// `securetoken.googleapis.com/v1/token`: a new ID token for a refresh token of the
    /// project (the refresh token stays).
    func refresh(_ refreshToken: String, project: FirebaseProjects.Project) async throws -> SignedIn {
        let app: AppRuntime, session: SessionRecord, user: UserRecord
        do {
            (app, session, user) = try await sessions.refreshedSession(refreshToken)
        } catch let error as ServiceError where error.code == .invalidSession {
            throw FirebaseError.invalid(error.message.contains("expired") ? "TOKEN_EXPIRED" : "INVALID_REFRESH_TOKEN")
        }
        guard app.id == project.app.id else { throw FirebaseError.invalid("INVALID_REFRESH_TOKEN") }
        let extra = try await sessions.hooks.accessTokenClaims(user: user, app: app)
        let idToken = try await idTokens.make(
            project: project, user: user, session: session.id, providerType: session.providerType, authTime: session.createdAt,
            methods: session.methods, sessionClaims: session.claims, extra: extra)
        return SignedIn(idToken: idToken, refreshToken: refreshToken, user: user, isNew: false)
    }
}
