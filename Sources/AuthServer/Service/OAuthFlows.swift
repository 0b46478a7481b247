// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Crypto

/// The redirect and loopback flows' pending state (docs/protocol/identity-providers.md sections 3 and 3b):
/// flows waiting for the IdP's callback (10 minutes, single use), and login codes waiting for
/// their native client (60 seconds, single use, bound to the client's PKCE challenge).
///
/// A flow is not stored when it starts: it travels sealed in the `state` sent to the IdP
/// (``SealedStates``: encrypted and authenticated under the server's key), so no number of
/// starts fills anything, and its callback spends it, once across every instance. A login code
/// is kept in the store, sealed (``SealedSignIn``): the store keeps a digest of the code and
/// the content encrypted under a key derived from it, so the table gives away no IdP token
/// (`returnProviderTokens`) to someone who can read it. Codes are only made by callbacks that
/// completed a sign-in with the IdP.
struct OAuthFlows: Sendable {
    /// A sign-in sent to the IdP.
    struct Flow: Sendable {
        var app: String
        var provider: String
        /// Where the client wants the answer, and its own state.
        var redirect: String
        var clientState: String
        /// The nonce and PKCE verifier this server sent the IdP.
        var nonce: String
        var verifier: String
        /// The native client's PKCE challenge: the loopback flow (a login code, no token in a URL).
        var challenge: String?
        /// The caller's access token when linking (realm-web's `link=true`).
        var linkToken: String?
        var deviceId: String?
        var expires: Int64
        /// The digest of the browser's link cookie (``LinkBinding``): a web redirect link.
        var binding: String? = nil
    }

    let store: any SignInStore
    /// Seals flows into their states.
    let states: SealedStates
    static let flowLifetime: Int64 = 600
    static let codeLifetime: Int64 = 60

    /// The `state` to send the IdP: `flow`, sealed; nothing is stored.
    func start(_ flow: Flow) throws -> String {
        try states.seal(Self.document(flow), kind: .flow, app: flow.app, expires: flow.expires)
    }

    /// The flow of an IdP callback's `state`, spent: a state is used once.
    func take(_ state: String, now: Int64) async throws -> Flow? {
        guard let (app, content) = try await states.take(state, kind: .flow, now: now), let flow = Self.flow(content), flow.app == app
        else { return nil }
        return flow
    }

    /// A login code for the proof of a loopback flow.
    func issueCode(for proof: LoginService.Proof, flow: Flow, challenge: String, now: Int64) async throws -> String {
        let code = Secrets.randomHex(bytes: 24)
        let content: EJSONDocument = [
            "provider": .string(flow.provider), "challenge": .string(challenge),
            "proof": .document(Self.document(proof)),
        ]
        try await store.insertSignIn(Self.seal(content, secret: code, app: flow.app, kind: .code, expires: now + Self.codeLifetime))
        return code
    }

    /// The proof a login code stands for. The code is spent whatever the outcome; it must be
    /// this app's and `provider`'s (any provider's when nil: the proof names it), unexpired, and
    /// `verifier` must match its challenge (S256).
    func redeem(_ code: String, verifier: String, app: String, provider: String?, now: Int64) async throws -> LoginService.Proof {
        guard let found = try await store.takeSignIn(id: SealedStates.id(code), kind: .code), found.expiresAt > now,
            let content = Self.open(found, secret: code), let challenge = content["challenge"]?.stringValue,
            let proof = content["proof"]?.documentValue.flatMap(Self.proof)
        else {
            throw ServiceError(.authError, "login code is unknown, used or expired")
        }
        guard found.appId == app, provider == nil || content["provider"]?.stringValue == provider else {
            throw ServiceError(.authError, "login code was issued for another app or provider")
        }
        guard Secrets.constantTimeEqual(Array(Self.challenge(of: verifier).utf8), Array(challenge.utf8)) else {
            throw ServiceError(.authError, "login code: codeVerifier does not match the code_challenge")
        }
        return proof
    }

    /// PKCE S256: base64url(SHA-256(verifier)).
    static func challenge(of verifier: String) -> String {
        Base64.encode(Array(SHA256.hash(data: Array(verifier.utf8))), urlSafe: true)
    }

    // MARK: sealing

    private static func key(_ secret: String, kind: SealedSignIn.Kind) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Array(secret.utf8)),
            info: Array("authsh sign-in \(kind.rawValue)".utf8), outputByteCount: 32)
    }

    /// `content` encrypted under the secret's key, bound to its app and kind.
    static func seal(_ content: EJSONDocument, secret: String, app: String, kind: SealedSignIn.Kind, expires: Int64) throws -> SealedSignIn {
        let box = try AES.GCM.seal(
            Array(EJSON.document(content).encodedString(.canonical).utf8), using: key(secret, kind: kind),
            authenticating: Array("\(app)\u{0}\(kind.rawValue)".utf8))
        guard let combined = box.combined else { throw StoreError.unavailable("seal sign-in") }
        return SealedSignIn(id: SealedStates.id(secret), appId: app, kind: kind, sealed: Array(combined), expiresAt: expires)
    }

    /// The content of a sealed sign-in, or nil when it does not open with this secret.
    static func open(_ signIn: SealedSignIn, secret: String) -> EJSONDocument? {
        guard let box = try? AES.GCM.SealedBox(combined: signIn.sealed),
            let plain = try? AES.GCM.open(
                box, using: key(secret, kind: signIn.kind),
                authenticating: Array("\(signIn.appId)\u{0}\(signIn.kind.rawValue)".utf8)),
            case .document(let content)? = try? EJSON(parsing: String(decoding: plain, as: UTF8.self))
        else { return nil }
        return content
    }

    // MARK: content

    private static func document(_ flow: Flow) -> EJSONDocument {
        var d: EJSONDocument = [
            "app": .string(flow.app), "provider": .string(flow.provider), "redirect": .string(flow.redirect),
            "clientState": .string(flow.clientState), "nonce": .string(flow.nonce),
            "verifier": .string(flow.verifier), "expires": .int64(flow.expires),
        ]
        if let v = flow.challenge { d["challenge"] = .string(v) }
        if let v = flow.linkToken { d["linkToken"] = .string(v) }
        if let v = flow.binding { d["binding"] = .string(v) }
        if let v = flow.deviceId { d["deviceId"] = .string(v) }
        return d
    }

    private static func flow(_ d: EJSONDocument) -> Flow? {
        guard let app = d["app"]?.stringValue, let provider = d["provider"]?.stringValue, let redirect = d["redirect"]?.stringValue,
            let clientState = d["clientState"]?.stringValue, let nonce = d["nonce"]?.stringValue,
            let verifier = d["verifier"]?.stringValue, case .int64(let expires)? = d["expires"]
        else { return nil }
        return Flow(
            app: app, provider: provider, redirect: redirect, clientState: clientState, nonce: nonce, verifier: verifier,
            challenge: d["challenge"]?.stringValue, linkToken: d["linkToken"]?.stringValue,
            deviceId: d["deviceId"]?.stringValue, expires: expires, binding: d["binding"]?.stringValue)
    }

    /// A proof as sealed content (a login code's, a second factor's pending login).
    static func document(_ proof: LoginService.Proof) -> EJSONDocument {
        let i = proof.identity
        var identity: EJSONDocument = [
            "externalId": .string(i.externalId), "providerType": .string(i.providerType),
            "providerId": .string(i.providerId), "data": .document(i.data),
        ]
        if let email = i.email { identity["email"] = .string(email) }
        var d: EJSONDocument = [
            "identity": .document(identity), "profile": .document(proof.profile),
            "providerTokens": .document(proof.providerTokens),
        ]
        if let owner = proof.owner { d["owner"] = .string(owner) }
        if let methods = proof.methods { d["methods"] = .array(methods.map(EJSON.string)) }
        if proof.skipsSecondFactor { d["skipsSecondFactor"] = true }
        if let claims = proof.sessionClaims { d["sessionClaims"] = .document(claims) }
        return d
    }

    /// The proof of ``document(_:)``, or nil when `d` is not one.
    static func proof(_ d: EJSONDocument) -> LoginService.Proof? {
        guard let i = d["identity"]?.documentValue, let externalId = i["externalId"]?.stringValue,
            let providerType = i["providerType"]?.stringValue, let providerId = i["providerId"]?.stringValue
        else { return nil }
        let identity = IdentityRecord(
            externalId: externalId, providerType: providerType, providerId: providerId,
            data: i["data"]?.documentValue ?? [:], email: i["email"]?.stringValue)
        var proof = LoginService.Proof(
            identity: identity, owner: d["owner"]?.stringValue, profile: d["profile"]?.documentValue ?? [:],
            providerTokens: d["providerTokens"]?.documentValue ?? [:],
            methods: d["methods"]?.arrayValue?.compactMap(\.stringValue), skipsSecondFactor: d["skipsSecondFactor"] == true)
        proof.sessionClaims = d["sessionClaims"]?.documentValue
        return proof
    }
}
