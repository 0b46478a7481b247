// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// The browser flows of the `oauth2-*` providers (docs/protocol/identity-providers.md sections
/// 3 and 3b): the start, which checks what the client asked for, seals the flow in its state
/// and names the identity provider's authorization URL; and the callback's finish, which
/// exchanges the IdP's code and logs in, links, or hands the client a login code. The routes
/// (``OAuthController``) read the query and cookies and write the redirects and cookies.
struct OAuthSignIn {
    let apps: [String: AppRuntime]
    let flows: OAuthFlows
    let clock: ServerClock
    let login: LoginService
    let sessions: SessionService
    let abuse: AbuseControls
    /// This server's callback URL, registered at identity providers (``PublicOrigin/callbackURL()``).
    let callbackURL: @Sendable () throws(ServiceError) -> String

    /// What a client asks for when it starts a sign-in (the start's query).
    struct Start: Sendable {
        /// Where the answer goes.
        var redirect: String?
        /// The client's own state, given back with the answer.
        var state: String?
        /// PKCE: the client's challenge (S256 only); the answer is then a login code.
        var codeChallenge: String?
        var codeChallengeMethod: String?
        /// With a link: the caller's access token, which travels sealed in the flow and is
        /// checked at the start and again at the callback.
        var linkToken: String?
        /// realm-web's `device` parameter.
        var device: String?
        /// Scopes asked for instead of the provider's (comma-separated).
        var scopes: String?
        /// The client's `idp_` parameters, as given (`idp_allow_signup=false`).
        var providerParameters: [(String, String)] = []
    }

    /// A started flow: where to send the browser, the flow's state, and, for a web link, the
    /// binding whose value the browser must keep (``LinkBinding``).
    struct Started: Sendable {
        var location: String
        var state: String
        var binding: (value: String, digest: String)?
    }

    /// The authorization request's own parameters, which a client's `idp_` parameters may not
    /// set: the ones the server sends, and those that would replace them (RFC 9101 request
    /// objects carry their own `redirect_uri` and `client_id`; RFC 9126 pushed requests too).
    static let protocolParameters: Set<String> = [
        "client_id", "redirect_uri", "response_type", "state", "nonce", "scope", "code_challenge", "code_challenge_method",
        "response_mode", "request", "request_uri", "client_secret", "client_assertion", "client_assertion_type",
        "code", "code_verifier", "grant_type",
    ]

    /// A new binding of a web link flow to its browser (``LinkBinding``): the cookie's value,
    /// and the digest the flow keeps.
    static func newBinding() -> (value: String, digest: String) {
        let value = Secrets.randomHex(bytes: 24)
        return (value, Hex.encode(Secrets.digest(value)))
    }

    /// The enabled `oauth2-*` provider `type` of `app`, or 404.
    static func provider(_ type: String, of app: AppRuntime) throws(ServiceError) -> OAuthProvider {
        guard let provider = app.oauth(type) else {
            throw ServiceError(.authProviderNotFound, "authentication via '\(type)' is unsupported")
        }
        return provider
    }

    /// Starts a sign-in with `provider` of `app`: nothing is stored (the flow travels in its
    /// state), so starts fill nothing; rate limited as a login.
    func start(app: AppRuntime, provider: OAuthProvider, _ start: Start, address: String) async throws -> Started {
        let type = provider.config.type
        guard let redirect = start.redirect, !redirect.isEmpty else {
            throw ServiceError(.missingParameter, "missing parameter 'redirect'")
        }
        guard let clientState = start.state, !clientState.isEmpty, clientState.utf8.count <= 512 else {
            throw ServiceError(.missingParameter, "missing parameter 'state' (at most 512 bytes)")
        }
        let challenge = start.codeChallenge
        if challenge != nil, start.codeChallengeMethod != "S256" {
            throw ServiceError(.invalidParameter, "code_challenge_method must be S256")
        }
        if let challenge, !(43...128).contains(challenge.utf8.count) {
            throw ServiceError(.invalidParameter, "code_challenge must be a base64url SHA-256 (43 characters)")
        }
        // No open redirect: the answer goes only where the app allows, or (with PKCE, so that
        // only the client that started the flow can use its code) to a loopback listener.
        guard let uri = RedirectURI(redirect),
            uri.isAllowed(by: provider.config.redirectURIs) || (uri.isLoopback && challenge != nil)
        else {
            throw ServiceError(.invalidParameter, "redirect URI is not allowed for \(type): add it to the provider's redirectURIs")
        }
        try await abuse.checkRate(.login, app: app, address: address)
        if let token = start.linkToken { _ = try await sessions.caller(accessToken: token, in: app) }
        let endpoints = try await provider.endpoints()
        guard let authorization = endpoints.authorization else {
            throw ServiceError(.authProviderNotFound, "\(type) has no authorization endpoint configured")
        }
        // A web redirect link is bound to this browser; a loopback one is bound by PKCE.
        let binding = start.linkToken != nil && challenge == nil ? Self.newBinding() : nil
        let flow = OAuthFlows.Flow(
            app: app.id, provider: type, redirect: redirect, clientState: clientState,
            nonce: Secrets.randomHex(bytes: 16), verifier: Secrets.randomHex(bytes: 32),
            challenge: challenge, linkToken: start.linkToken, deviceId: Self.deviceId(realmDevice: start.device),
            expires: clock.now + OAuthFlows.flowLifetime, binding: binding?.digest)
        let state = try flows.start(flow)
        var fields = [
            ("client_id", provider.config.clientId), ("redirect_uri", try callbackURL()),
            ("response_type", "code"), ("state", state),
            ("code_challenge", OAuthFlows.challenge(of: flow.verifier)), ("code_challenge_method", "S256"),
        ]
        let scopes = start.scopes.map { $0.split(separator: ",").map(String.init) } ?? provider.config.scopes
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        if provider.config.isOpenIDConnect { fields.append(("nonce", flow.nonce)) }
        if provider.config.kind == .apple && !scopes.isEmpty { fields.append(("response_mode", "form_post")) }
        // The client's custom parameters (`idp_allow_signup=false` sends `allow_signup=false`),
        // never one of the protocol's own: those are refused.
        for (key, value) in start.providerParameters where key.hasPrefix("idp_") {
            let name = String(key.dropFirst(4))
            guard !name.isEmpty else { continue }
            guard !Self.protocolParameters.contains(name.lowercased()) else {
                throw ServiceError(
                    .invalidParameter, "parameter '\(printable(key, limit: 40))' is not allowed: the server sets the protocol's own parameters")
            }
            fields.append((name, value))
        }
        let location = authorization + (authorization.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
        return Started(location: location, state: state, binding: binding)
    }

    /// What the identity provider sent back to the callback, and what the browser brought.
    struct Callback: Sendable {
        /// The callback's parameters (its query, or Apple's form).
        var parameters: [(String, String)]
        /// Whether the request may finish a link flow bound by `digest` (``LinkBinding``).
        var accepts: @Sendable (_ state: String, _ digest: String?) -> Bool
    }

    /// A finished flow: where to send the browser (the login or link done, or its error), and
    /// whether the flow was bound to the browser (its cookie is then cleared).
    struct Finished: Sendable {
        var location: String
        var state: String
        var wasBound: Bool
    }

    /// The IdP's answer: its flow taken (once), the code exchanged.
    func finish(_ callback: Callback, address: String) async throws -> Finished {
        func q(_ key: String) -> String? { FormEncoding.value(key, in: callback.parameters) }
        guard let state = q("state"), let flow = try await flows.take(state, now: clock.now) else {
            throw ServiceError(.invalidParameter, "unknown, used or expired sign-in state: start the sign-in again")
        }
        AuditTrail.app(flow.app)
        AuditTrail.provider(flow.provider)
        // A link, or (with PKCE) a login code for the client's own login request, audited there.
        if flow.linkToken != nil { AuditTrail.event("link") } else if flow.challenge != nil { AuditTrail.event("login_code") }
        guard let app = apps[flow.app], let provider = app.oauth(flow.provider) else {
            throw ServiceError(.authProviderNotFound, "the provider of this sign-in is no longer enabled")
        }
        let location = try await answer(flow, app: app, provider: provider, callback: callback, address: address, state: state)
        return Finished(location: location, state: state, wasBound: flow.binding != nil)
    }

    /// The callback's redirect for a flow taken: the login or link done, or its error.
    private func answer(
        _ flow: OAuthFlows.Flow, app: AppRuntime, provider: OAuthProvider, callback: Callback, address: String, state: String
    ) async throws -> String {
        func q(_ key: String) -> String? { FormEncoding.value(key, in: callback.parameters) }
        do {
            guard callback.accepts(state, flow.binding) else {
                throw ServiceError(.authError, "this link was started in another browser: start it again from the app")
            }
            if let error = q("error") {
                let what =
                    error == "access_denied" ? "the person denied the sign-in" : "the identity provider answered \(printable(error, limit: 40))"
                throw ServiceError(.authError, what)
            }
            guard let code = q("code") else { throw ServiceError(.authError, "the identity provider sent no code") }
            let verified = try await provider.exchange(code: code, redirectURI: try callbackURL(), verifier: flow.verifier, nonce: flow.nonce)
            let proof = LoginService.proof(verified, provider: provider) { id, data in
                IdentityRecord(externalId: id, providerType: provider.config.type, providerId: app.providerId(provider.config.type), data: data)
            }
            if let challenge = flow.challenge {
                let code = try await flows.issueCode(for: proof, flow: flow, challenge: challenge, now: clock.now)
                return Self.redirect(flow.redirect, query: [("code", code), ("state", flow.clientState)])
            }
            var linking: Caller?
            if let token = flow.linkToken { linking = try await sessions.caller(accessToken: token, in: app) }
            let answer = try await login.finish(proof, app: app, deviceId: login.deviceId(flow.deviceId), linking: linking, address: address)
            let ua = ["access_token", "refresh_token", "user_id", "device_id"].map { answer[$0]?.stringValue ?? "" }.joined(separator: "$")
            var fragment = [("_baas_client_app_id", app.id), ("_baas_ua", ua), ("_baas_state", flow.clientState)]
            if flow.linkToken != nil { fragment.append(("_baas_link", "ok")) }
            return Self.redirect(flow.redirect, fragment: fragment)
        } catch let error as ServiceError {
            AuditTrail.failed(error.code.rawValue)
            if flow.challenge != nil {
                return Self.redirect(flow.redirect, query: [("error", error.message), ("state", flow.clientState)])
            }
            return Self.redirect(
                flow.redirect,
                fragment: [
                    ("_baas_client_app_id", app.id), ("_baas_error", error.message),
                    ("_baas_state", flow.clientState),
                ])
        }
    }

    private static func redirect(_ uri: String, query: [(String, String)]) -> String {
        uri + (uri.contains("?") ? "&" : "?") + FormEncoding.encode(query)
    }

    private static func redirect(_ uri: String, fragment: [(String, String)]) -> String {
        uri + "#" + FormEncoding.encode(fragment)
    }

    /// The device id of realm-web's `device` parameter (base64 of `{"deviceId": ...}`).
    static func deviceId(realmDevice: String?) -> String? {
        guard let realmDevice, realmDevice.utf8.count <= 4096, let bytes = Base64.decode(realmDevice),
            let doc = try? EJSON(parsing: bytes)
        else { return nil }
        // A real id or none: it travels in the state, which stays short.
        return doc["deviceId"]?.stringValue.flatMap { ObjectId(hex: $0) == nil ? nil : $0 }
    }

    /// A device authorization with `provider`: the code to show and where to enter it
    /// (rate limited as a login).
    func startDevice(app: AppRuntime, provider: OAuthProvider, scopes: [String]?, address: String) async throws -> EJSON {
        try await abuse.checkRate(.login, app: app, address: address)
        return try await provider.startDevice(scopes: scopes)
    }
}
