// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Firebase's email actions (`sendOobCode`, `resetPassword`, `update` with `oobCode`) on
/// authsh's reset and confirmation mails: an action code (`oobCode`) is the one-time token of
/// such a mail and its id in one string, so a code from a Firebase link and a token from an
/// App Services link are the same secret, used once, within the same 30 minutes.
struct FirebaseActions {
    let accounts: FirebaseAccounts
    let userpass: UserpassService

    /// The actions built, by Firebase's `requestType`.
    enum RequestType: String, Sendable {
        case passwordReset = "PASSWORD_RESET"
        case verifyEmail = "VERIFY_EMAIL"
        case emailSignIn = "EMAIL_SIGNIN"
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
        /// Sent by the server to the old address after an email change; no client asks for it.
        case recoverEmail = "RECOVER_EMAIL"

        /// The token kind of its mail.
        var kind: OneTimeToken.Kind {
            switch self {
            case .passwordReset: .reset
            case .verifyEmail: .confirm
            case .emailSignIn: .signIn
            case .verifyAndChangeEmail: .changeEmail
            case .recoverEmail: .recoverEmail
            }
        }
        /// The link's `mode`, as Firebase's action links name it.
        var mode: String {
            switch self {
            case .passwordReset: "resetPassword"
            case .verifyEmail: "verifyEmail"
            case .emailSignIn: "signIn"
            case .verifyAndChangeEmail: "verifyAndChangeEmail"
            case .recoverEmail: "recoverEmail"
            }
        }

        /// The audit log's event of a request for its mail.
        var requestedEvent: String {
            switch self {
            case .passwordReset: "reset_requested"
            case .verifyEmail: "confirm_requested"
            case .emailSignIn: "signin_link_requested"
            case .verifyAndChangeEmail: "email_change_requested"
            case .recoverEmail: "email_recovery_requested"
            }
        }

        /// The type of a token kind's mail.
        init(_ kind: OneTimeToken.Kind) {
            self =
                switch kind {
                case .reset: .passwordReset
                case .confirm: .verifyEmail
                case .signIn: .emailSignIn
                case .changeEmail: .verifyAndChangeEmail
                case .recoverEmail: .recoverEmail
                }
        }

        /// A `requestType` a request may ask for.
        init(kind: String) throws(FirebaseError) {
            guard let type = RequestType(rawValue: kind), type != .recoverEmail else {
                throw FirebaseError.invalid(
                    "OPERATION_NOT_ALLOWED",
                    "requestType \(kind) is not built: PASSWORD_RESET, VERIFY_EMAIL, EMAIL_SIGNIN and VERIFY_AND_CHANGE_EMAIL are")
            }
            self = type
        }
    }

    // MARK: codes

    /// The action code of a token and its id.
    static func code(token: String, tokenId: String) -> String { tokenId + token }

    /// A code's token id (24 hex digits) and token (64), or nil when it is no code.
    static func parts(_ code: String) -> (tokenId: String, token: String)? {
        let bytes = Array(code.utf8)
        guard bytes.count == 88, bytes.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return (String(decoding: bytes[..<24], as: UTF8.self), String(decoding: bytes[24...], as: UTF8.self))
    }

    /// Firebase's action link: `BASE?mode=...&oobCode=...&apiKey=...&lang=en[&continueUrl=...]`,
    /// BASE the app's page for that mail (`resetPasswordUrl`, `emailConfirmationUrl`: a
    /// custom email action handler), else `ORIGIN/__/auth/action`; nil when there is neither.
    static func link(
        _ type: RequestType, code: String, app: AppRuntime, apiKey: String?, continueUrl: String?, origin: String?
    ) -> String? {
        let userpass = app.config.providers.userpass
        // A sign-in link goes to the app's own page (its continueUrl), which hands it to
        // `signInWithEmailLink`.
        let page =
            switch type {
            case .passwordReset: userpass?.resetPasswordUrl
            case .verifyEmail, .verifyAndChangeEmail, .recoverEmail: userpass?.emailConfirmationUrl
            case .emailSignIn: continueUrl
            }
        guard let base = page ?? origin.map({ $0 + "/__/auth/action" }) else { return nil }
        var query = [("mode", type.mode), ("oobCode", code)]
        if let apiKey { query.append(("apiKey", apiKey)) }
        query.append(("lang", "en"))
        if let continueUrl, type != .emailSignIn { query.append(("continueUrl", continueUrl)) }
        return base + (base.contains("?") ? "&" : "?") + FormEncoding.encode(query)
    }

    // MARK: sending

    /// `accounts:sendOobCode` of a client: a reset mail to `email`, or a verification mail to
    /// the email of the `idToken`'s user (to `email` when an administrator asks). The answer's
    /// email; an unknown email answers the same and gets no mail (Firebase's email enumeration
    /// protection).
    func send(
        _ type: RequestType, email: String?, idToken: String?, continueUrl: String?, project: FirebaseProjects.Project, apiKey: String?,
        origin: String?, address: String, byAdmin: Bool = false
    ) async throws -> String {
        let app = project.app
        let to: String
        switch type {
        case .passwordReset, .emailSignIn:
            guard let email, !email.isEmpty else { throw FirebaseError.invalid("MISSING_EMAIL") }
            do { try Emails.check(email) } catch { throw FirebaseError.invalid("INVALID_EMAIL") }
            if type == .emailSignIn, continueUrl == nil { throw FirebaseError.invalid("MISSING_CONTINUE_URI") }
            to = email
        case .verifyEmail where byAdmin:
            guard let email, !email.isEmpty else { throw FirebaseError.invalid("MISSING_EMAIL") }
            to = email
        case .verifyAndChangeEmail, .recoverEmail:
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "an email change is FirebaseEmailChange's")
        case .verifyEmail:
            guard let idToken else { throw FirebaseError.invalid("INVALID_ID_TOKEN") }
            let user = try await accounts.user(idToken: idToken, project: project)
            guard let account = try await accounts.userpassAccount(of: user, app: app) else { throw FirebaseError.invalid("MISSING_EMAIL") }
            to = account.email
        }
        try checkContinueURL(continueUrl, app: app)
        try await accounts.abuse.checkRate(.mail, app: app, address: address, account: to.lowercased())
        try requireMail(type, app: app)
        // A sign-in link may make the account; the other mails need one.
        if type != .emailSignIn, try await accounts.store.userpassAccount(app: app.id, email: to) == nil { return to }
        try await userpass.sendLink(type.kind, app: app, email: to, origin: origin) { token, tokenId in
            Self.link(type, code: Self.code(token: token, tokenId: tokenId), app: app, apiKey: apiKey, continueUrl: continueUrl, origin: origin)
                ?? ""
        }
        return to
    }

    /// The Admin API's `sendOobCode` with `returnOobLink`: a code for `email`'s account and its
    /// link, stored, and no mail sent. `EMAIL_NOT_FOUND` when no account has the email.
    /// A `VERIFY_AND_CHANGE_EMAIL` code holds `newEmail`.
    func makeLink(
        _ type: RequestType, email: String, newEmail: String? = nil, continueUrl: String?, project: FirebaseProjects.Project, origin: String?
    ) async throws -> (code: String, link: String) {
        let app = project.app
        try checkContinueURL(continueUrl, app: app)
        try requireMail(type, app: app)
        guard try await accounts.store.userpassAccount(app: app.id, email: email) != nil else { throw FirebaseError.invalid("EMAIL_NOT_FOUND") }
        let (token, tokenId) = try await userpass.newToken(type.kind, app: app, email: email, newEmail: newEmail)
        let code = Self.code(token: token, tokenId: tokenId)
        let apiKey = app.config.firebase?.apiKeys.first
        // The Admin SDKs want a link: without a page or an origin, the code alone in one.
        let link =
            Self.link(type, code: code, app: app, apiKey: apiKey, continueUrl: continueUrl, origin: origin) ?? "?mode=\(type.mode)&oobCode=\(code)"
        return (code, link)
    }

    /// Refuses a `continueUrl` (where the app's action page sends the person after) whose
    /// origin the app does not list in `allowedRequestOrigins` (in dev mode, `*` or no list
    /// allows any): a mail from the app must not send its reader to somebody else's page.
    /// Firebase's `UNAUTHORIZED_DOMAIN`.
    func checkContinueURL(_ url: String?, app: AppRuntime) throws(FirebaseError) {
        guard let url else { return }
        guard let uri = RedirectURI(url) else { throw FirebaseError.invalid("INVALID_CONTINUE_URI") }
        let origin = (try? RequestOrigins.canonical("\(uri.scheme)://\(uri.host)" + (uri.port.map { ":\($0)" } ?? ""))) ?? ""
        let dev = accounts.idTokens.dev
        let allowed = app.config.allowedRequestOrigins.map { $0.origins.contains(origin) || ($0.any && dev) } ?? dev
        guard allowed else { throw FirebaseError.invalid("UNAUTHORIZED_DOMAIN", "Domain not allowlisted by project") }
    }

    /// Refuses what the app's email/password provider does not do.
    func requireMail(_ type: RequestType, app: AppRuntime) throws(FirebaseError) {
        guard let config = app.config.providers.userpass else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "email/password sign-in is off for this app")
        }
        if type == .passwordReset, config.runResetFunction {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "a reset function is configured: resets go through it")
        }
    }

    // MARK: using

    /// What a code is for, without using it (`resetPassword` with no new password: the SDKs'
    /// `checkActionCode` and `verifyPasswordResetCode`): its type, the account's email and, for
    /// an email change, the other email.
    func check(code: String, project: FirebaseProjects.Project, address: String) async throws -> (
        type: RequestType, email: String, newEmail: String?
    ) {
        let (tokenId, token) = try await parts(code, project: project, address: address)
        let digest = Secrets.digest(token)
        for kind in OneTimeToken.Kind.allCases {
            if let found = try await accounts.store.peekToken(app: project.app.id, kind: kind, id: tokenId, digest: digest, now: accounts.clock.now) {
                return (RequestType(kind), found.email, found.newEmail)
            }
        }
        throw FirebaseError.invalid("INVALID_OOB_CODE")
    }

    /// `resetPassword` with a new password: the code used once, the password set (the email is
    /// proven, every session of the user ends). The account's email.
    func resetPassword(code: String, newPassword: String, project: FirebaseProjects.Project, address: String) async throws -> String {
        let app = project.app
        let (tokenId, token) = try await parts(code, project: project, address: address)
        guard (6...128).contains(newPassword.count) else {
            throw FirebaseError.invalid("WEAK_PASSWORD", "Password should be at least 6 characters")
        }
        guard
            let email = try await accounts.store.consumeToken(
                app: app.id, kind: .reset, id: tokenId, digest: Secrets.digest(token), now: accounts.clock.now)
        else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
        try await accounts.store.resetPassword(app: app.id, email: email, hash: try await accounts.passwords.hasher.hash(newPassword))
        return email
    }

    /// `update` with an `oobCode` (the SDKs' `applyActionCode`): a verification code used once,
    /// the account's email proven (a pending App Services registration is confirmed by it).
    /// The user after it, if the account has one yet.
    /// Nil when the code is no verification code (nothing is used then).
    func verifyEmail(_ code: (tokenId: String, token: String), project: FirebaseProjects.Project) async throws -> (
        email: String, user: UserRecord?
    )? {
        let app = project.app
        let store = accounts.store
        guard
            let email = try await store.consumeToken(
                app: app.id, kind: .confirm, id: code.tokenId, digest: Secrets.digest(code.token), now: accounts.clock.now)
        else { return nil }
        guard let account = try await store.userpassAccount(app: app.id, email: email) else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
        try await store.confirmUserpassAccount(app: app.id, email: email)
        if LoginService.userpassVouches(app) {
            try await store.setIdentityEmail(
                Emails.vouched(email), app: app.id, providerType: ProviderType.userpass, externalId: account.identityId)
        }
        return (email, try await store.user(app: app.id, providerType: ProviderType.userpass, externalId: account.identityId))
    }

    /// A code's parts, after the rate limit on tokens; `INVALID_OOB_CODE` for no code.
    func parts(_ code: String, project: FirebaseProjects.Project, address: String) async throws -> (tokenId: String, token: String) {
        guard let parts = Self.parts(code) else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
        try await accounts.abuse.checkRate(.token, app: project.app, address: address, account: parts.tokenId)
        return parts
    }
}
