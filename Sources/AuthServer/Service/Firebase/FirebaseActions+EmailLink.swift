// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// Firebase's email-link sign-in: a link's code signs its email in, or links it to a user.
extension FirebaseActions {
    /// `accounts:signInWithEmailLink`: the code of a sign-in link for `email` used once, and the
    /// account of the email signed in (made, without a password, when there is none): the
    /// mailbox is proven. An account whose email was not proven yet loses the password someone
    /// set on it and every session, as at a reset by mail: whoever registered the address
    /// before its owner cannot keep a way in.
    func signInWithEmailLink(email: String, code: String, project: FirebaseProjects.Project, address: String) async throws
        -> FirebaseAccounts.SignedIn
    {
        let app = project.app
        let store = accounts.store
        let owner = try await useSignInLink(email: email, code: code, project: project, address: address)
        let now = accounts.clock.now
        if let existing = try await store.userpassAccount(app: app.id, email: owner) {
            if !existing.emailVerified || !existing.confirmed {
                try await store.resetPassword(app: app.id, email: owner, hash: PasswordHasher.noPassword)
                try await store.confirmUserpassAccount(app: app.id, email: owner)
            }
        } else {
            let made = UserpassAccount(
                appId: app.id, email: owner, passwordHash: PasswordHasher.noPassword, identityId: accounts.clock.newId(), confirmed: true,
                createdAt: now, emailVerified: true)
            do {
                try await store.insertUserpassAccount(made)
            } catch let error as StoreError where error.isConflict {
                // Made at the same moment by another request: signed in below all the same.
            }
        }
        guard let account = try await store.userpassAccount(app: app.id, email: owner) else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
        var proof = LoginService.proof(of: account, app: app)
        // The mailbox, proven through a link: no method of RFC 8176's (as an identity
        // provider's login), so a TOTP code may still be the second factor.
        proof.methods = []
        return try await accounts.signIn(proof, project: project, address: address)
    }

    /// The email of a sign-in link's code, used once: `INVALID_OOB_CODE`, or `INVALID_EMAIL`
    /// when the code is another email's (then it stays unused).
    private func useSignInLink(email: String, code: String, project: FirebaseProjects.Project, address: String) async throws -> String {
        let app = project.app
        let store = accounts.store
        let (tokenId, token) = try await parts(code, project: project, address: address)
        let now = accounts.clock.now
        guard let owner = try await store.tokenEmail(app: app.id, kind: .signIn, id: tokenId, digest: Secrets.digest(token), now: now)
        else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
        guard owner.lowercased() == email.lowercased() else {
            throw FirebaseError.invalid("INVALID_EMAIL", "The email provided does not match the sign-in email address.")
        }
        guard try await store.consumeToken(app: app.id, kind: .signIn, id: tokenId, digest: Secrets.digest(token), now: now) != nil else {
            throw FirebaseError.invalid("INVALID_OOB_CODE")
        }
        return owner
    }

    /// `accounts:signInWithEmailLink` with an `idToken` (the SDKs' `linkWithCredential` of an
    /// email link): the link's email, proven, becomes the user's email/password identity
    /// (without a password) and the user signs in anew. The user's own email proves itself
    /// again; a user with another email has its password provider already
    /// (`PROVIDER_ALREADY_LINKED`); an email another user signs in with is `EMAIL_EXISTS`.
    func linkEmailLink(idToken: String, email: String, code: String, project: FirebaseProjects.Project, address: String) async throws
        -> FirebaseAccounts.SignedIn
    {
        let app = project.app
        let store = accounts.store
        let (_, user) = try await accounts.holder(idToken: idToken, project: project)
        let owner = try await useSignInLink(email: email, code: code, project: project, address: address)
        if let mine = try await accounts.userpassAccount(of: user, app: app), mine.email.lowercased() != owner.lowercased() {
            throw FirebaseError.invalid("PROVIDER_ALREADY_LINKED")
        }
        var made = false
        if let existing = try await store.userpassAccount(app: app.id, email: owner) {
            let holder = try await store.userId(app: app.id, providerType: ProviderType.userpass, externalId: existing.identityId)
            if let holder, holder != user.id { throw FirebaseError.invalid("EMAIL_EXISTS") }
            if holder == nil {
                // An account nobody signed in with yet: whoever registered it before the
                // mailbox's owner keeps no password on it.
                try await store.resetPassword(app: app.id, email: owner, hash: PasswordHasher.noPassword)
            }
            try await store.confirmUserpassAccount(app: app.id, email: owner)
        } else {
            try await store.insertUserpassAccount(
                UserpassAccount(
                    appId: app.id, email: owner, passwordHash: PasswordHasher.noPassword, identityId: accounts.clock.newId(), confirmed: true,
                    createdAt: accounts.clock.now, emailVerified: true))
            made = true
        }
        guard let account = try await store.userpassAccount(app: app.id, email: owner) else { throw FirebaseError.invalid("INVALID_OOB_CODE") }
        var proof = LoginService.proof(of: account, app: app)
        proof.methods = []
        do {
            let signedIn = try await accounts.link(proof, to: idToken, project: project)
            if LoginService.userpassVouches(app) {
                try await store.setIdentityEmail(
                    Emails.vouched(owner), app: app.id, providerType: ProviderType.userpass, externalId: account.identityId)
            }
            return signedIn
        } catch let error as FirebaseError where error.message == "FEDERATED_USER_ID_ALREADY_LINKED" {
            throw FirebaseError.invalid("EMAIL_EXISTS")
        } catch {
            if made { try? await store.deleteUserpassAccount(app: app.id, email: owner) }
            throw error
        }
    }
}
