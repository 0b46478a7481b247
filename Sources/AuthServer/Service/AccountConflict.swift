// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// One account per email (docs/protocol/identity-providers.md section 5): the 409 that carries a pending
/// credential, linking it, and the sign-in methods of an email.
///
/// A pending credential is `ID.SECRET` (32 random bytes): the server keeps its SHA-256 digest
/// with the identity it names, so it cannot be forged or altered (any change misses the
/// digest), says nothing about the identity to whoever holds it, and is used once on every
/// server sharing the database (the delete that removes it wins).
extension LoginService {
    /// How long a pending credential can be linked.
    static let pendingCredentialLifetime: Int64 = 600

    /// Whether a confirmed email/password account proves its email: not with `autoConfirm`,
    /// where anyone can register any address (an attacker could otherwise make an account for
    /// a victim's email before the victim signs in with Google, and have the victim link to it).
    static func userpassVouches(_ app: AppRuntime) -> Bool {
        guard let userpass = app.config.providers.userpass else { return false }
        return !userpass.autoConfirm
    }

    /// Keeps a returning identity's verified email as its provider says it now (one write,
    /// only when it changed).
    func noteEmail(of identity: IdentityRecord, in user: UserRecord, app: AppRuntime) async throws {
        guard
            let stored = user.identities.first(where: {
                $0.providerType == identity.providerType && $0.externalId == identity.externalId
            }), stored.email != identity.email
        else { return }
        try await store.setIdentityEmail(
            identity.email, app: app.id, providerType: identity.providerType,
            externalId: identity.externalId)
    }

    /// The 409 of a login whose verified email another user holds, with a new pending
    /// credential for `identity`.
    func accountExists(_ identity: IdentityRecord, email: String, holder: EmailHolder, app: AppRuntime) async throws -> ServiceError {
        let id = clock.newId()
        let token = id + "." + Base64.encode(Secrets.randomBytes(32), urlSafe: true)
        try await store.insertPendingCredential(
            PendingCredential(
                id: id, appId: app.id, digest: Secrets.digest(token), email: email, identity: identity,
                expiresAt: clock.now + Self.pendingCredentialLifetime))
        let names = holder.providers.joined(separator: ", ")
        var error = ServiceError(
            .accountExistsWithDifferentCredential,
            "an account already exists with this email: sign in with \(names), "
                + "then link the pending credential to add \(identity.providerType) to it")
        error.details = [
            "email": .string(email), "providers": .array(holder.providers.map(EJSON.string)),
            "provider": .string(identity.providerType), "pendingCredential": .string(token),
        ]
        return error
    }

    /// `POST {app}/auth/providers/{provider}/login?link=true {"pendingCredential": P}`: attaches
    /// the identity `P` names to the caller, who must hold the email it was issued for.
    func linkPending(_ token: String, provider: String, caller: Caller) async throws -> EJSON {
        let user = try await sessions.user(of: caller)
        let proof = try await takePending(token, provider: provider, for: user, app: caller.app)
        return try await link(proof, caller: caller)
    }

    /// The identity a pending credential names, the credential used up: for `user`, who must
    /// hold the email it was issued for, and of `provider` when one is named.
    func takePending(_ token: String, provider: String?, for user: UserRecord, app: AppRuntime) async throws -> Proof {
        let invalid = ServiceError(.invalidParameter, "pendingCredential is not valid: unknown, altered, or already used")
        let parts = token.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, token.utf8.count <= 128,
            let pending = try await store.pendingCredential(app: app.id, id: String(parts[0])),
            Secrets.constantTimeEqual(pending.digest, Secrets.digest(token))
        else { throw invalid }
        guard pending.expiresAt > clock.now else {
            // Left for the sweep (a day later), so that every late try is told it expired.
            throw ServiceError(.invalidParameter, "pendingCredential expired: sign in with \(pending.identity.providerType) again for a new one")
        }
        if let provider, pending.identity.providerType != provider {
            throw ServiceError(.invalidParameter, "pendingCredential is for \(pending.identity.providerType), not \(provider)")
        }
        guard user.identities.contains(where: { $0.email == pending.email }) else {
            throw ServiceError(.forbidden, "pendingCredential was issued for the account that holds its email: sign in as that account to link it")
        }
        guard try await store.deletePendingCredential(app: app.id, id: pending.id) else { throw invalid }
        return Proof(identity: pending.identity, profile: pending.identity.data)
    }

    /// `GET {app}/auth/methods?email=E`: the providers the holder of verified email E signs
    /// in with (`[]` when nobody holds it); 403 `EnumerationProtected` when the app hides
    /// which emails have accounts.
    func signInMethods(app: AppRuntime, email: String?, address: String) async throws -> EJSON {
        guard !app.config.emailEnumerationProtection else {
            throw ServiceError(.enumerationProtected, "this app does not tell which emails have accounts (emailEnumerationProtection)")
        }
        guard let email, !email.isEmpty else { throw ServiceError(.missingParameter, "expected the email query parameter") }
        guard let vouched = Emails.vouched(email) else { throw ServiceError(.invalidParameter, "email is not an address") }
        try await abuse.checkRate(.login, app: app, address: address, account: vouched)
        let holder = try await store.emailHolder(app: app.id, email: vouched, accounts: Self.userpassVouches(app))
        return ["providers": .array((holder?.providers ?? []).map(EJSON.string))]
    }
}
