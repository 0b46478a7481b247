// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// `accounts:signInWithIdp`: a sign-in (or, with an `idToken`, a link) by an identity
/// provider's credential, which the client got from the provider itself (`postBody`:
/// `providerId` and `id_token` or `access_token`). The provider is the app's (Google's
/// `oauth2-google`, GitHub's `oauth2-github`, an OIDC provider `oidc.NAME`'s `oauth2-NAME`), and
/// the credential is checked as an App Services login checks it. In dev mode only, the Auth
/// emulator's fake credentials are taken too: an `id_token` that is a JSON object of claims or
/// an unsigned JWT (`sub`, `email`, `email_verified`, `name`, `picture`), for any provider.
///
/// One account per email holds as for any login: an identity whose verified email another user
/// holds gets Firebase's `needConfirmation` answer (the SDKs'
/// `auth/account-exists-with-different-credential`), whose `pendingToken` links it once the
/// person signs in as that user.
struct FirebaseIdpSignIn {
    let accounts: FirebaseAccounts
    /// The redirect flows `createAuthUri` starts (``OAuthSignIn``).
    let oauth: OAuthSignIn

    /// What `signInWithIdp` answers: the tokens, or the account-exists answer.
    struct Answer: Sendable {
        var signedIn: FirebaseAccounts.SignedIn?
        var providerId: String
        var rawId: String
        var email: String?
        var emailVerified: Bool
        var profile: EJSONDocument
        /// The IdP's own tokens (`returnIdpCredential`).
        var oauthIdToken: String?
        var oauthAccessToken: String?
        /// Set on the account-exists answer.
        var needConfirmation: (pendingToken: String, verifiedProviders: [String])?
    }

    /// A credential as the client sent it: `postBody`'s fields, or the redirect flow's
    /// `requestUri` (the page the provider sent the browser back to, its query and fragment)
    /// with `postBody`'s fields beside them, as Firebase reads them.
    struct Credential: Sendable {
        var providerId: String
        var idToken: String?
        var accessToken: String?
        /// A redirect's answer (``FirebaseIdpSignIn/createAuthUri(providerId:continueUri:sessionId:scopes:parameters:project:address:)``):
        /// the login code authsh's callback sent to the page, and the `sessionId` that started
        /// it, which the code is bound to.
        var loginCode: (code: String, sessionId: String)?

        /// `postBody` (`providerId=google.com&id_token=...`); `INVALID_CREDENTIAL_OR_PROVIDER_ID`
        /// without a provider, `INVALID_IDP_RESPONSE` without a token.
        init(postBody: String) throws(FirebaseError) {
            guard let fields = FormEncoding.decode(postBody) else {
                throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "postBody is not form-encoded")
            }
            try self.init(fields: fields, from: "postBody")
        }

        /// A `requestUri` that carries the provider's answer (the emulator's handler page
        /// sends `...?providerId=google.com&id_token=...`; a redirect started by
        /// `createAuthUri` lands with `?code=...&state=...`, the code redeemed with
        /// `sessionId`), with `postBody`'s fields if any. `INVALID_REQUEST_URI` for what is no
        /// absolute http(s) URL.
        init(requestUri: String, postBody: String?, sessionId: String? = nil) throws(FirebaseError) {
            guard requestUri.utf8.count <= 16_384, let url = URLParts(requestUri) else {
                throw FirebaseError.invalid("INVALID_REQUEST_URI", "requestUri must be an absolute http or https URL")
            }
            var fields: [(String, String)] = []
            for part in [url.query, url.fragment, postBody] {
                guard let part, !part.isEmpty else { continue }
                guard let decoded = FormEncoding.decode(part) else {
                    throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "requestUri's query or fragment, or postBody, is not form-encoded")
                }
                fields += decoded
            }
            if FormEncoding.value("id_token", in: fields) == nil, FormEncoding.value("access_token", in: fields) == nil,
                let code = FormEncoding.value("code", in: fields)
            {
                guard let sessionId, !sessionId.isEmpty else {
                    throw FirebaseError.invalid(
                        "INVALID_IDP_RESPONSE",
                        "requestUri carries a redirect's code: send the sessionId createAuthUri answered beside it")
                }
                self.init(providerId: FormEncoding.value("providerId", in: fields)?.lowercased() ?? "", loginCode: (code, sessionId))
                return
            }
            try self.init(fields: fields, from: "requestUri")
        }

        private init(providerId: String, loginCode: (code: String, sessionId: String)) {
            self.providerId = providerId
            self.loginCode = loginCode
        }

        private init(fields: [(String, String)], from source: String) throws(FirebaseError) {
            guard let provider = FormEncoding.value("providerId", in: fields)?.lowercased(), !provider.isEmpty else {
                throw FirebaseError.invalid("INVALID_CREDENTIAL_OR_PROVIDER_ID", "\(source) names no providerId")
            }
            providerId = provider
            idToken = FormEncoding.value("id_token", in: fields).flatMap { $0.isEmpty ? nil : $0 }
            accessToken = FormEncoding.value("access_token", in: fields).flatMap { $0.isEmpty ? nil : $0 }
            guard idToken != nil || accessToken != nil else {
                throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "\(source) holds neither id_token nor access_token")
            }
        }
    }

    /// The query and fragment of an absolute http(s) URL.
    struct URLParts {
        var query: String?
        var fragment: String?

        init?(_ text: String) {
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), !text.contains(where: { $0.isWhitespace }) else { return nil }
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let mark = rest.firstIndex(of: "?") { query = String(rest[rest.index(after: mark)...]) }
            let host = rest.dropFirst(lower.hasPrefix("https://") ? 8 : 7).prefix { $0 != "/" && $0 != "?" }
            guard !host.isEmpty else { return nil }
        }
    }

    /// Signs in with `credential`, or links it to the user of `idToken` (with `pendingToken`,
    /// the identity of an earlier account-exists answer instead).
    func signIn(
        _ credential: Credential?, pendingToken: String?, idToken: String?, project: FirebaseProjects.Project, address: String
    ) async throws -> Answer {
        let app = project.app
        try await accounts.abuse.checkRate(.login, app: app, address: address)
        if let pendingToken {
            guard let idToken else { throw FirebaseError.invalid("INVALID_ID_TOKEN", "a pendingToken is linked to the user of an idToken") }
            let (_, user) = try await accounts.holder(idToken: idToken, project: project)
            let proof: LoginService.Proof
            do {
                proof = try await accounts.login.takePending(pendingToken, provider: nil, for: user, app: app)
            } catch let error as ServiceError {
                throw FirebaseError.invalid("INVALID_PENDING_TOKEN", error.message)
            }
            return try await link(proof, to: idToken, project: project)
        }
        guard let credential else { throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "postBody is missing") }
        let proof: LoginService.Proof
        if let (code, sessionId) = credential.loginCode {
            // The code names its provider.
            proof = try await redeem(code, sessionId: sessionId, app: app, address: address)
        } else {
            guard let type = FirebaseIdentities.providerType(credential.providerId), type.hasPrefix("oauth2-") else {
                throw FirebaseError.invalid("INVALID_PROVIDER_ID", "\(credential.providerId) is no identity provider of this server")
            }
            proof = try await self.proof(credential, type: type, app: app)
        }
        if let idToken { return try await link(proof, to: idToken, project: project) }
        var answer = Self.answer(proof, credential: credential)
        do {
            answer.signedIn = try await accounts.signIn(proof, project: project, address: address)
        } catch let error as ServiceError where error.code == .accountExistsWithDifferentCredential {
            let providers = error.details["providers"]?.arrayValue?.compactMap(\.stringValue) ?? []
            // Firebase lists the providers that verified the email: never the password, nor a phone.
            let verified = providers.map(FirebaseIdentities.providerId).filter { $0 != "password" && $0 != "phone" }
            answer.needConfirmation = (error.details["pendingCredential"]?.stringValue ?? "", verified)
        }
        return answer
    }

    /// The identity a credential proves: a fake one's claims in dev mode, else the app's
    /// provider's check.
    private func proof(_ credential: Credential, type: String, app: AppRuntime) async throws -> LoginService.Proof {
        if let claims = try Self.fakeClaims(credential) {
            guard accounts.idTokens.dev else {
                throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "the emulator's fake credentials are taken in dev mode only")
            }
            guard let sub = claims["sub"]?.stringValue, !sub.isEmpty, sub.utf8.count <= 255 else {
                throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "the id_token has no sub")
            }
            var profile: EJSONDocument = [:]
            let email = claims["email"]?.stringValue
            let verified = claims["email_verified"] == .bool(true)
            if let email, verified { profile["email"] = .string(email) }
            if let name = claims["name"]?.stringValue { profile["name"] = .string(name) }
            if let picture = claims["picture"]?.stringValue { profile["picture_url"] = .string(picture) }
            var data = profile
            if let email { data["email"] = .string(email) }
            var identity = IdentityRecord(externalId: sub, providerType: type, providerId: app.providerId(type), data: data)
            identity.email = verified ? email.flatMap(Emails.vouched) : nil
            return LoginService.Proof(identity: identity, profile: profile)
        }
        guard let provider = app.oauth(type) else {
            throw FirebaseError.invalid("OPERATION_NOT_ALLOWED", "\(credential.providerId) sign-in is off for this app (no \(type) provider)")
        }
        var fields: EJSONDocument = [:]
        if let token = credential.idToken {
            fields["id_token"] = .string(token)
        } else if let token = credential.accessToken {
            fields["accessToken"] = .string(token)
        }
        let verified: OAuthProvider.Verified
        do {
            verified = try await provider.verify(InputFields(document: fields))
        } catch let error as ServiceError where error.code != .identityProviderUnavailable {
            throw FirebaseError.invalid("INVALID_IDP_RESPONSE", error.message)
        }
        return LoginService.proof(verified, provider: provider) { subject, data in
            IdentityRecord(externalId: subject, providerType: type, providerId: app.providerId(type), data: data)
        }
    }

    /// The emulator's fake credential's claims: an `id_token` (or `access_token`) that is a
    /// JSON object, or a JWT whose `alg` is `none`; nil for anything else (a real token).
    static func fakeClaims(_ credential: Credential) throws(FirebaseError) -> EJSONDocument? {
        guard let token = credential.idToken ?? credential.accessToken else { return nil }
        if token.hasPrefix("{") {
            guard case .document(let claims)? = try? EJSON(parsing: Array(token.utf8)) else {
                throw FirebaseError.invalid("INVALID_IDP_RESPONSE", "the id_token is not strict JSON")
            }
            return claims
        }
        guard let parts = JWTParts(token), parts.isUnsigned else { return nil }
        return parts.claims
    }

    /// Links the proven identity to the user of `idToken` (``FirebaseAccounts/link(_:to:project:)``).
    private func link(_ proof: LoginService.Proof, to idToken: String, project: FirebaseProjects.Project) async throws -> Answer {
        var answer = Self.answer(proof, credential: nil)
        answer.signedIn = try await accounts.link(proof, to: idToken, project: project)
        return answer
    }

    /// The answer's identity fields of a proof.
    private static func answer(_ proof: LoginService.Proof, credential: Credential?) -> Answer {
        let identity = proof.identity
        let email = identity.email ?? identity.data["email"]?.stringValue
        return Answer(
            providerId: FirebaseIdentities.providerId(identity.providerType), rawId: identity.externalId, email: email,
            emailVerified: identity.email != nil, profile: proof.profile,
            // The client's own credential, or a redirect's: the provider's tokens when it has
            // `returnProviderTokens`, as an App Services login answers them.
            oauthIdToken: credential?.idToken ?? proof.providerTokens["provider_id_token"]?.stringValue,
            oauthAccessToken: credential?.accessToken ?? proof.providerTokens["provider_access_token"]?.stringValue)
    }
}
