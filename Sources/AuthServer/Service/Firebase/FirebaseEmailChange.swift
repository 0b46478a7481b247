// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Firebase's email change, on the user's email/password account:
///
/// - `sendOobCode` `VERIFY_AND_CHANGE_EMAIL` (the SDKs' `verifyBeforeUpdateEmail`) mails a
///   link to the new address; `update` with its code moves the account there, the new email
///   proven, and ends every session of the user (Firebase revokes the tokens of an email change).
/// - `update` with `email` (the SDKs' `updateEmail`) moves it at once, unproven, ending every
///   other session; refused while email enumeration protection is on, as Firebase refuses it.
///
/// Both need a recent login and mail the old address a `RECOVER_EMAIL` link: whoever took the
/// account over with a stolen session cannot keep it, for that link moves it back (every
/// session ends then too).
struct FirebaseEmailChange {
    let actions: FirebaseActions

    private var accounts: FirebaseAccounts { actions.accounts }

    /// Where a mail's link points and the API key it carries.
    struct Links: Sendable {
        var origin: String?
        var apiKey: String?
    }

    /// `sendOobCode` `VERIFY_AND_CHANGE_EMAIL` of a client: a link to `newEmail` that moves the
    /// ID token's user there. `EMAIL_EXISTS` when it is taken, unless email enumeration
    /// protection is on (then no mail goes, and the answer is the same). The answer's email
    /// (the current one).
    func send(
        idToken: String?, newEmail: String?, continueUrl: String?, project: FirebaseProjects.Project, links: Links, address: String
    ) async throws -> String {
        let app = project.app
        guard let idToken else { throw FirebaseError.invalid("MISSING_ID_TOKEN") }
        let (token, user) = try await accounts.holder(idToken: idToken, project: project)
        try accounts.requireRecentLogin(token, project: project)
        let newEmail = try checked(newEmail)
        guard let account = try await accounts.userpassAccount(of: user, app: app) else { throw FirebaseError.invalid("MISSING_EMAIL") }
        try actions.checkContinueURL(continueUrl, app: app)
        try actions.requireMail(.verifyAndChangeEmail, app: app)
        try await accounts.abuse.checkRate(.mail, app: app, address: address, account: newEmail.lowercased())
        if try await isTaken(newEmail, by: account, app: app) {
            if app.config.emailEnumerationProtection { return account.email }
            throw FirebaseError.invalid("EMAIL_EXISTS")
        }
        try await actions.userpass.sendLink(.changeEmail, app: app, email: account.email, newEmail: newEmail, origin: links.origin) {
            token, tokenId in
            FirebaseActions.link(
                .verifyAndChangeEmail, code: FirebaseActions.code(token: token, tokenId: tokenId), app: app, apiKey: links.apiKey,
                continueUrl: continueUrl, origin: links.origin) ?? ""
        }
        return account.email
    }

    /// The Admin API's `sendOobCode` `VERIFY_AND_CHANGE_EMAIL` with `returnOobLink`: the code
    /// and link that move `email`'s account to `newEmail`, stored, no mail sent.
    func makeLink(email: String, newEmail: String?, continueUrl: String?, project: FirebaseProjects.Project, origin: String?) async throws
        -> (code: String, link: String)
    {
        let newEmail = try checked(newEmail)
        guard let account = try await accounts.store.userpassAccount(app: project.app.id, email: email) else {
            throw FirebaseError.invalid("EMAIL_NOT_FOUND")
        }
        if try await isTaken(newEmail, by: account, app: project.app) { throw FirebaseError.invalid("EMAIL_EXISTS") }
        return try await actions.makeLink(
            .verifyAndChangeEmail, email: email, newEmail: newEmail, continueUrl: continueUrl, project: project, origin: origin)
    }

    /// `update` with the code of a `VERIFY_AND_CHANGE_EMAIL` or `RECOVER_EMAIL` mail, used once:
    /// the account moved to the new email (or back to the old one), proven, and every session
    /// of its user ended. After a change by link, the old address gets its `RECOVER_EMAIL`
    /// mail. Nil when the code is of neither kind (nothing is used then).
    func apply(_ code: (tokenId: String, token: String), project: FirebaseProjects.Project, links: Links) async throws -> (
        type: FirebaseActions.RequestType, email: String, newEmail: String, user: UserRecord?
    )? {
        let app = project.app
        let (tokenId, token) = code
        let store = accounts.store
        let now = accounts.clock.now
        for kind in [OneTimeToken.Kind.changeEmail, .recoverEmail] {
            guard let used = try await store.useToken(app: app.id, kind: kind, id: tokenId, digest: Secrets.digest(token), now: now) else {
                continue
            }
            guard let other = used.newEmail else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
            // A change: from the account's email to the new one. A recovery: from the email it
            // was moved to, back to the one the mail went to.
            let (from, to) = kind == .changeEmail ? (used.email, other) : (other, used.email)
            try await accounts.moveEmail(from: from, to: to, verified: true, app: app, keepSession: nil)
            if kind == .changeEmail { try await notifyOldAddress(from, movedTo: to, app: app, links: links) }
            var user: UserRecord?
            if let account = try await store.userpassAccount(app: app.id, email: to) {
                user = try await store.user(app: app.id, providerType: ProviderType.userpass, externalId: account.identityId)
            }
            return (FirebaseActions.RequestType(kind), used.email, other, user)
        }
        return nil
    }

    /// Mails `from`, the address an account just left for `to`, the link that moves it back.
    /// Without mail (no transport, no email/password provider), nothing is sent.
    func notifyOldAddress(_ from: String, movedTo to: String, app: AppRuntime, links: Links) async throws {
        guard app.config.providers.userpass != nil else { return }
        try await actions.userpass.sendLink(.recoverEmail, app: app, email: from, newEmail: to, origin: links.origin) { token, tokenId in
            FirebaseActions.link(
                .recoverEmail, code: FirebaseActions.code(token: token, tokenId: tokenId), app: app, apiKey: links.apiKey, continueUrl: nil,
                origin: links.origin) ?? ""
        }
    }

    /// `newEmail`, present and an email: `MISSING_NEW_EMAIL`, `INVALID_NEW_EMAIL`.
    private func checked(_ newEmail: String?) throws(FirebaseError) -> String {
        guard let newEmail, !newEmail.isEmpty else { throw FirebaseError.invalid("MISSING_NEW_EMAIL") }
        do { try Emails.check(newEmail) } catch { throw FirebaseError.invalid("INVALID_NEW_EMAIL") }
        return newEmail
    }

    /// Whether another account has `email`, or another user's identity vouches for it (the
    /// store checks again, in any case, when the change is made).
    private func isTaken(_ email: String, by account: UserpassAccount, app: AppRuntime) async throws -> Bool {
        let store = accounts.store
        if let holder = try await store.userpassAccount(app: app.id, email: email) { return holder.identityId != account.identityId }
        guard let vouched = Emails.vouched(email), let holder = try await store.emailHolder(app: app.id, email: vouched, accounts: true)
        else { return false }
        let owner = try await store.user(app: app.id, providerType: ProviderType.userpass, externalId: account.identityId)
        return holder.userId == nil || holder.userId != owner?.id
    }
}
