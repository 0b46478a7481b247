// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

extension FirebaseAccounts {
    /// How an email signs in, for `accounts:createAuthUri` (the SDKs'
    /// `fetchSignInMethodsForEmail`): whether a user has it, the Firebase ids of that user's
    /// providers, and those it signs in with (`password` only when its account has one).
    struct SignInMethods: Sendable {
        var registered: Bool
        var allProviders: [String]
        var signInMethods: [String]
    }

    /// The sign-in methods of `email` in the project's app; nil when the app hides which emails
    /// have accounts (`emailEnumerationProtection`, Firebase's email enumeration protection),
    /// after the same rate limit.
    func signInMethods(email: String, project: FirebaseProjects.Project, address: String) async throws -> SignInMethods? {
        let app = project.app
        guard let vouched = Emails.vouched(email) else { throw FirebaseError.invalid("INVALID_IDENTIFIER") }
        try await abuse.checkRate(.login, app: app, address: address, account: vouched)
        guard !app.config.emailEnumerationProtection else { return nil }
        var userId: String?
        var hasPassword = false
        if let account = try await store.userpassAccount(app: app.id, email: email) {
            hasPassword = account.passwordHash != PasswordHasher.noPassword
            userId = try await store.userId(app: app.id, providerType: ProviderType.userpass, externalId: account.identityId)
            if userId == nil { return SignInMethods(registered: true, allProviders: ["password"], signInMethods: hasPassword ? ["password"] : []) }
        } else if let holder = try await store.emailHolder(app: app.id, email: vouched, accounts: false) {
            userId = holder.userId
        }
        guard let userId, let user = try await store.user(id: userId, app: app.id) else {
            return SignInMethods(registered: false, allProviders: [], signInMethods: [])
        }
        var all: [String] = []
        var methods: [String] = []
        for identity in user.identities {
            let provider = FirebaseIdentities.providerId(identity.providerType)
            guard !["anonymous", "custom", "phone"].contains(provider), !all.contains(provider) else { continue }
            all.append(provider)
            if provider != "password" || hasPassword { methods.append(provider) }
        }
        return SignInMethods(registered: true, allProviders: all, signInMethods: methods)
    }
}
