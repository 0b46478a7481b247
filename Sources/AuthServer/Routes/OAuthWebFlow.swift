// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The browser flows of the `oauth2-*` providers (docs/protocol/identity-providers.md sections 3 and 3b):
/// the start (`GET .../auth/providers/{provider}/login?redirect=...`), which sends the browser
/// to the IdP, and the callback the IdP sends it back to.
extension OAuthController {
    /// The app and the enabled `oauth2-*` provider named in the path, or 404.
    func oauthProvider(_ context: AuthRequestContext) throws(ServiceError) -> (AppRuntime, OAuthProvider) {
        let app = try context.app
        let type = context.parameters.get("provider") ?? ""
        guard let provider = app.oauth(type) else {
            throw ServiceError(.authProviderNotFound, "authentication via '\(type)' is unsupported")
        }
        return (app, provider)
    }

    /// The authorization request's own parameters, which a client's `idp_` parameters may not
    /// set: the ones the server sends, and those that would replace them (RFC 9101 request
    /// objects carry their own `redirect_uri` and `client_id`; RFC 9126 pushed requests too).
    static let protocolParameters: Set<String> = [
        "client_id", "redirect_uri", "response_type", "state", "nonce", "scope", "code_challenge", "code_challenge_method",
        "response_mode", "request", "request_uri", "client_secret", "client_assertion", "client_assertion_type",
        "code", "code_verifier", "grant_type",
    ]

    /// Sends the browser to the identity provider: the flow sealed in the state, the
    /// authorization URL built.
    func redirectToProvider(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let (app, provider) = try oauthProvider(context)
        let type = provider.config.type
        let query = FormRequest.query(request)
        func q(_ key: String) -> String? { FormEncoding.value(key, in: query) }
        guard let redirect = q("redirect"), !redirect.isEmpty else {
            throw ServiceError(.missingParameter, "missing parameter 'redirect'")
        }
        guard let clientState = q("state"), !clientState.isEmpty, clientState.utf8.count <= 512 else {
            throw ServiceError(.missingParameter, "missing parameter 'state' (at most 512 bytes)")
        }
        let challenge = q("code_challenge")
        if challenge != nil, q("code_challenge_method") != "S256" {
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
        // Rate limited as a login; nothing is stored (the flow travels in its state), so
        // starts fill nothing.
        try await abuse.checkRate(.login, app: app, address: context.clientAddress)
        var linkToken: String?
        if q("link") == "true" {
            let token = try request.bearerToken()
            _ = try await sessions.userOfAccessToken(token, in: app)
            linkToken = token
        }
        let endpoints = try await provider.endpoints()
        guard let authorization = endpoints.authorization else {
            throw ServiceError(.authProviderNotFound, "\(type) has no authorization endpoint configured")
        }
        // A web redirect link is bound to this browser; a loopback one is bound by PKCE.
        let binding = linkToken != nil && challenge == nil ? LinkBinding.make() : nil
        let flow = OAuthFlows.Flow(
            app: app.id, provider: type, redirect: redirect, clientState: clientState,
            nonce: Secrets.randomHex(bytes: 16), verifier: Secrets.randomHex(bytes: 32),
            challenge: challenge, linkToken: linkToken, deviceId: Self.deviceId(realmDevice: q("device")),
            expires: clock.now + OAuthFlows.flowLifetime, binding: binding?.digest)
        let state = try flows.start(flow)
        var fields = [
            ("client_id", provider.config.clientId), ("redirect_uri", try origin.callbackURL()),
            ("response_type", "code"), ("state", state),
            ("code_challenge", OAuthFlows.challenge(of: flow.verifier)), ("code_challenge_method", "S256"),
        ]
        let scopes = q("scopes").map { $0.split(separator: ",").map(String.init) } ?? provider.config.scopes
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        if provider.config.isOpenIDConnect { fields.append(("nonce", flow.nonce)) }
        if provider.config.kind == .apple && !scopes.isEmpty { fields.append(("response_mode", "form_post")) }
        // The client's custom parameters (`idp_allow_signup=false` sends `allow_signup=false`),
        // never one of the protocol's own: those are refused.
        for (key, value) in query where key.hasPrefix("idp_") {
            let name = String(key.dropFirst(4))
            guard !name.isEmpty else { continue }
            guard !Self.protocolParameters.contains(name.lowercased()) else {
                throw ServiceError(
                    .invalidParameter, "parameter '\(printable(key, limit: 40))' is not allowed: the server sets the protocol's own parameters")
            }
            fields.append((name, value))
        }
        let location = authorization + (authorization.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
        var response: Response
        if q("providerRedirectHeader") == "true" {
            response = JSONResponse.empty
            response.headers[HTTPField.Name("X-Baas-Location")!] = location
        } else {
            response = Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        }
        if let binding {
            let cookie = LinkBinding.setCookie(state: state, value: binding.value, verdict: adminChannel.verdict(request, context))
            response.headers.append(HTTPField(name: .setCookie, value: cookie))
        }
        return response
    }

    /// The IdP's answer: exchange the code, then answer the client's redirect.
    func finishSignIn(_ query: [(String, String)], _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        func q(_ key: String) -> String? { FormEncoding.value(key, in: query) }
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
        var response = try await answer(
            flow, app: app, provider: provider, query: query, request: request, address: context.clientAddress, state: state)
        if flow.binding != nil {
            for clear in LinkBinding.clearCookies(state: state, verdict: adminChannel.verdict(request, context)) {
                response.headers.append(HTTPField(name: .setCookie, value: clear))
            }
        }
        return response
    }

    /// The callback's redirect for a flow taken: the login or link done, or its error.
    private func answer(
        _ flow: OAuthFlows.Flow, app: AppRuntime, provider: OAuthProvider, query: [(String, String)],
        request: Request, address: String, state: String
    ) async throws -> Response {
        func q(_ key: String) -> String? { FormEncoding.value(key, in: query) }
        do {
            guard LinkBinding.accepts(request, state: state, digest: flow.binding) else {
                throw ServiceError(.authError, "this link was started in another browser: start it again from the app")
            }
            if let error = q("error") {
                let what =
                    error == "access_denied" ? "the person denied the sign-in" : "the identity provider answered \(printable(error, limit: 40))"
                throw ServiceError(.authError, what)
            }
            guard let code = q("code") else { throw ServiceError(.authError, "the identity provider sent no code") }
            let verified = try await provider.exchange(code: code, redirectURI: try origin.callbackURL(), verifier: flow.verifier, nonce: flow.nonce)
            let proof = LoginService.proof(verified, provider: provider) { id, data in
                IdentityRecord(externalId: id, providerType: provider.config.type, providerId: app.providerId(provider.config.type), data: data)
            }
            if let challenge = flow.challenge {
                let code = try await flows.issueCode(for: proof, flow: flow, challenge: challenge, now: clock.now)
                return Self.redirect(flow.redirect, query: [("code", code), ("state", flow.clientState)])
            }
            let answer = try await login.finish(proof, app: app, deviceId: login.deviceId(flow.deviceId), linkToken: flow.linkToken, address: address)
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

    private static func redirect(_ uri: String, query: [(String, String)]) -> Response {
        Response(
            status: .found,
            headers: [
                .location: uri + (uri.contains("?") ? "&" : "?") + FormEncoding.encode(query),
                .cacheControl: "no-store",
            ])
    }

    private static func redirect(_ uri: String, fragment: [(String, String)]) -> Response {
        Response(status: .found, headers: [.location: uri + "#" + FormEncoding.encode(fragment), .cacheControl: "no-store"])
    }

    /// The device id of realm-web's `device` parameter (base64 of `{"deviceId": ...}`).
    static func deviceId(realmDevice: String?) -> String? {
        guard let realmDevice, realmDevice.utf8.count <= 4096, let bytes = Base64.decode(realmDevice),
            let doc = try? EJSON(parsing: bytes)
        else { return nil }
        // A real id or none: it travels in the state, which stays short.
        return doc["deviceId"]?.stringValue.flatMap { ObjectId(hex: $0) == nil ? nil : $0 }
    }
}
