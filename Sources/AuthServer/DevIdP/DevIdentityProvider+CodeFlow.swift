// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// The dev identity provider's authorization code flow (RFC 6749 section 4.1, with PKCE): the authorize
/// request kept for its page, the person's answer, and the token endpoint (which takes device codes too),
/// with its errors and the access tokens it issues.
extension DevIdentityProvider {
    // MARK: Authorization code flow

    /// Checks an authorize request and keeps it for the page's form; returns the form token.
    func startAuthorization(_ flavor: Flavor, query: [(String, String)]) throws(ServiceError) -> (token: String, grant: Grant) {
        func q(_ k: String) -> String? { FormEncoding.value(k, in: query) }
        guard let clientId = q("client_id"), clientId == clients[flavor]?.id else {
            throw ServiceError(.invalidParameter, "dev IdP: unknown client_id")
        }
        guard let redirect = q("redirect_uri"), let uri = RedirectURI(redirect), uri.isLoopback || isOwn(uri) else {
            throw ServiceError(.invalidParameter, "dev IdP: redirect_uri must be a loopback URI or this server")
        }
        if flavor == .oidc && q("response_type") != "code" {
            throw ServiceError(.invalidParameter, "dev IdP: response_type must be code")
        }
        if let method = q("code_challenge_method"), method != "S256" {
            throw ServiceError(.invalidParameter, "dev IdP: code_challenge_method must be S256")
        }
        let grant = Grant(
            flavor: flavor, clientId: clientId, redirectURI: redirect,
            scope: q("scope") ?? (flavor == .oidc ? "openid" : ""), state: q("state"), nonce: q("nonce"),
            challenge: q("code_challenge"), identity: nil, expires: clock.now + Self.codeLifetime)
        let token = Secrets.randomHex(bytes: 16)
        state.withLock { s in
            s.pages = s.pages.filter { $0.value.expires > clock.now }
            s.pages[token] = grant
        }
        return (token, grant)
    }

    private func isOwn(_ uri: RedirectURI) -> Bool {
        guard let own = origin.value.flatMap(RedirectURI.init) else { return false }
        return uri.scheme == own.scheme && uri.host == own.host && uri.port == own.port
    }

    /// The person's answer on a page: the redirect to send the browser to (with `code`, or
    /// `error=access_denied`). A page token is used once.
    func decide(page token: String, identity: Identity?) throws(ServiceError) -> String {
        guard var grant = state.withLock({ $0.pages.removeValue(forKey: token) }), grant.expires > clock.now,
            let redirect = grant.redirectURI
        else { throw ServiceError(.invalidParameter, "dev IdP: this sign-in page expired or was used; start again") }
        var fields: [(String, String)]
        if let identity {
            grant.identity = try remember(identity)
            let code = Secrets.randomHex(bytes: 20)
            state.withLock { $0.codes[code] = grant }
            fields = [("code", code)]
        } else {
            fields = [("error", "access_denied"), ("error_description", "The person denied the request")]
        }
        if let s = grant.state { fields.append(("state", s)) }
        return redirect + (redirect.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
    }

    /// An OAuth token-endpoint error: `error` is RFC 6749's code.
    struct TokenError: Error {
        var error: String
        var description: String
    }

    /// Checks the client's credentials (post or basic).
    private func checkClient(_ flavor: Flavor, id: String?, secret: String?, publicAllowed: Bool) throws(TokenError) {
        guard let client = clients[flavor], id == client.id else { throw TokenError(error: "invalid_client", description: "unknown client") }
        if let secret {
            guard Secrets.constantTimeEqual(Array(secret.utf8), Array(client.secret.utf8)) else {
                throw TokenError(error: "invalid_client", description: "wrong client secret")
            }
        } else if !publicAllowed {
            throw TokenError(error: "invalid_client", description: "client secret missing")
        }
    }

    /// The token endpoint: an authorization code (with its PKCE verifier), or a device code.
    func token(_ flavor: Flavor, form: [(String, String)], basic: (String, String)?) async throws(TokenError) -> EJSON {
        func f(_ k: String) -> String? { FormEncoding.value(k, in: form) }
        let clientId = basic?.0 ?? f("client_id"), secret = basic?.1 ?? f("client_secret")
        switch f("grant_type") {
        case "authorization_code",
            nil where flavor == .github:
            guard let code = f("code"), let grant = state.withLock({ $0.codes.removeValue(forKey: code) }),
                grant.flavor == flavor, grant.expires > clock.now, let identity = grant.identity
            else {
                throw TokenError(error: flavor == .github ? "bad_verification_code" : "invalid_grant", description: "unknown, used or expired code")
            }
            // A public client (PKCE, no secret) is allowed only when it sent a challenge.
            try checkClient(flavor, id: clientId, secret: secret, publicAllowed: grant.challenge != nil)
            guard grant.clientId == clientId else { throw TokenError(error: "invalid_grant", description: "code of another client") }
            if let uri = f("redirect_uri"), uri != grant.redirectURI {
                throw TokenError(error: "invalid_grant", description: "redirect_uri differs from the authorize request")
            }
            if let challenge = grant.challenge {
                guard let verifier = f("code_verifier"), OAuthFlows.challenge(of: verifier) == challenge else {
                    throw TokenError(error: "invalid_grant", description: "PKCE verifier does not match")
                }
            }
            return await issue(grant, identity: identity)
        case "urn:ietf:params:oauth:grant-type:device_code":
            try checkClient(flavor, id: clientId, secret: secret, publicAllowed: true)
            guard let code = f("device_code") else { throw TokenError(error: "invalid_request", description: "device_code missing") }
            let (grant, identity) = try pollDevice(code, clientId: clientId ?? "")
            return await issue(grant, identity: identity)
        default:
            throw TokenError(error: "unsupported_grant_type", description: "grant_type not supported")
        }
    }

    /// Tokens for an approved grant: an access token, and an ID token for OIDC.
    private func issue(_ grant: Grant, identity: Identity) async -> EJSON {
        var g = grant
        g.expires = clock.now + Self.tokenLifetime
        let access = (grant.flavor == .github ? "gho_" : grant.flavor == .facebook ? "EAA" : "dev_") + Secrets.randomHex(bytes: 20)
        state.withLock { s in
            s.accessTokens = s.accessTokens.filter { $0.value.expires > clock.now }
            s.accessTokens[access] = g
        }
        var answer: EJSONDocument = ["access_token": .string(access), "scope": .string(grant.scope)]
        if grant.flavor == .github {
            answer["token_type"] = "bearer"
        } else {
            answer["token_type"] = "Bearer"
            answer["expires_in"] = .int64(Self.tokenLifetime)
            if grant.scope.split(separator: " ").contains("openid"), let idToken = try? await idToken(grant, identity: identity) {
                answer["id_token"] = .string(idToken)
            }
        }
        return .document(answer)
    }

    /// The grant an access token was issued for.
    func grant(ofAccessToken token: String) -> Grant? {
        state.withLock { s in s.accessTokens[token].flatMap { $0.expires > clock.now ? $0 : nil } }
    }
}
