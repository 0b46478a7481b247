// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// One configured `oauth2-*` provider at run time: turns what a client presents (an ID
/// token, an authorization code, an access token) into a verified IdP identity.
final class OAuthProvider: Sendable {
    let config: OAuthProviderConfiguration
    let http: IdentityProviderHTTP
    let origin: ServerOrigin
    let clock: ServerClock
    private let discovery: OIDCDiscovery?
    private let keySets = Mutex<[String: JWKSKeySet]>([:])

    /// A verified IdP identity.
    struct Verified {
        /// The IdP's subject (OIDC `sub`, GitHub's or Facebook's user id).
        var subject: String
        /// Profile fields: `email` (only when the IdP says it is verified), `name`, `picture_url`,
        /// and the configured `metadataFields`.
        var profile: EJSONDocument
        /// The IdP's email even when unverified, and whether it was verified (account linking
        /// must only ever trust a verified one).
        var email: String?
        var emailVerified: Bool
        /// The IdP's tokens, for `returnProviderTokens`.
        var accessToken: String?
        var idToken: String?
    }

    init(_ config: OAuthProviderConfiguration, origin: ServerOrigin, clock: ServerClock) {
        self.config = config
        self.origin = origin
        self.clock = clock
        http = IdentityProviderHTTP(provider: config.type, timeout: .seconds(config.timeoutSeconds))
        let needsDiscovery =
            config.issuer != nil
            && (config.authorizationEndpoint == nil || config.tokenEndpoint == nil
                || (config.jwksURI == nil && config.isOpenIDConnect))
        discovery = needsDiscovery ? OIDCDiscovery(http: http) : nil
    }

    // MARK: Endpoints

    /// The provider's endpoints, from the config and, where it is silent, the issuer's
    /// discovery document; paths on this server resolved.
    func endpoints() async throws(ServiceError) -> OAuthEndpoints {
        var e = OAuthEndpoints(
            issuer: try config.issuer.map(origin.resolve),
            authorization: try config.authorizationEndpoint.map(origin.resolve),
            token: try config.tokenEndpoint.map(origin.resolve),
            userinfo: try config.userinfoEndpoint.map(origin.resolve),
            jwks: try config.jwksURI.map(origin.resolve),
            device: try config.deviceAuthorizationEndpoint.map(origin.resolve))
        if let discovery, let issuer = e.issuer {
            let doc = try await discovery.document(issuer: issuer)
            e.authorization = e.authorization ?? doc["authorization_endpoint"]?.stringValue
            e.token = e.token ?? doc["token_endpoint"]?.stringValue
            e.userinfo = e.userinfo ?? doc["userinfo_endpoint"]?.stringValue
            e.jwks = e.jwks ?? doc["jwks_uri"]?.stringValue
            e.device = e.device ?? doc["device_authorization_endpoint"]?.stringValue
        }
        return e
    }

    private func keySet(_ url: String) -> JWKSKeySet {
        keySets.withLock { sets in
            if let set = sets[url] { return set }
            let set = JWKSKeySet(url: url, http: http)
            sets[url] = set
            return set
        }
    }

    // MARK: Verifying what a client presents

    /// The identity proven by a login body: `id_token`, `authCode` (+ `redirectUri`,
    /// `codeVerifier`) or `accessToken` (docs/protocol/identity-providers.md section 2).
    func verify(_ body: InputFields) async throws -> Verified {
        if let token = try body.optionalString("id_token") ?? body.optionalString("idToken") {
            guard config.isOpenIDConnect else {
                throw ServiceError(.invalidParameter, "\(config.type) does not issue ID tokens: give authCode or accessToken")
            }
            return try await identity(idToken: token, nonce: try body.optionalString("nonce"), accessToken: nil)
        }
        if let code = try body.optionalString("authCode") {
            return try await exchange(
                code: code, redirectURI: try body.optionalString("redirectUri"),
                verifier: try body.optionalString("codeVerifier"), nonce: nil)
        }
        if let token = try body.optionalString("accessToken") {
            return try await identity(accessToken: token, checkClient: true)
        }
        if let code = try body.optionalString("deviceCode") {
            return try await pollDevice(code)
        }
        throw ServiceError(.missingParameter, "\(config.type) login needs id_token, authCode, accessToken, deviceCode or loginCode")
    }

    /// Verifies an ID token and reads its identity.
    func identity(idToken: String, nonce: String?, accessToken: String?) async throws(ServiceError) -> Verified {
        let e = try await endpoints()
        guard let jwks = e.jwks, let issuer = e.issuer else {
            throw ServiceError(.authError, "invalid ID token: \(config.type) has no issuer or JWKS configured")
        }
        var issuers = [issuer]
        if config.kind == .google { issuers.append("accounts.google.com") }
        let claims = try await IDTokenVerifier(issuers: issuers, audience: config.clientId, nonce: nonce, now: clock.now)
            .verify(idToken, keys: keySet(jwks))
        var v = try verified(claims: claims)
        v.idToken = idToken
        v.accessToken = accessToken
        return v
    }

    /// Exchanges an authorization code at the token endpoint (with the client secret and the
    /// PKCE verifier), then reads the identity from the ID token or the user API.
    func exchange(code: String, redirectURI: String?, verifier: String?, nonce: String?) async throws -> Verified {
        let e = try await endpoints()
        guard let endpoint = e.token else { throw ServiceError(.authError, "\(config.type) has no token endpoint configured") }
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", config.clientId)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        if let secret = config.clientSecret?.value { fields.append(("client_secret", secret)) }
        if let verifier { fields.append(("code_verifier", verifier)) }
        let reply = try await http.postForm(endpoint, fields)
        // GitHub answers a refused code with 200 and an `error` field.
        guard reply.ok, reply.body["error"] == nil, case .string(let access)? = reply.body["access_token"] else {
            let why = reply.body["error"]?.stringValue.map { printable($0, limit: 40) } ?? "status \(reply.status)"
            throw ServiceError(.authError, "\(config.type) refused the authorization code (\(why))")
        }
        if config.isOpenIDConnect, case .string(let idToken)? = reply.body["id_token"] {
            return try await identity(idToken: idToken, nonce: nonce, accessToken: access)
        }
        var v = try await identity(accessToken: access, checkClient: false)
        v.idToken = reply.body["id_token"]?.stringValue
        return v
    }

    /// The identity behind an access token, from the provider's user API. With `checkClient`
    /// (a token the client brought, not one this server just obtained) the token must have
    /// been issued to this app where the provider can tell (GitHub, Facebook).
    func identity(accessToken token: String, checkClient: Bool) async throws(ServiceError) -> Verified {
        var v: Verified
        switch config.kind {
        case .github:
            if checkClient { try await GitHubAPI(provider: self).checkToken(token) }
            v = try await GitHubAPI(provider: self).identity(token)
        case .facebook:
            v = try await FacebookAPI(provider: self).identity(token, checkClient: checkClient)
        default:
            guard let userinfo = try await endpoints().userinfo else {
                throw ServiceError(.invalidParameter, "\(config.type) has no userinfo endpoint: give id_token or authCode")
            }
            let reply = try await http.get(userinfo, bearer: token)
            guard reply.ok, case .document = reply.body else {
                throw ServiceError(.authError, "\(config.type) refused the access token (status \(reply.status))")
            }
            guard case .string(let sub)? = reply.body["sub"], !sub.isEmpty, sub.utf8.count <= 255 else {
                throw http.unavailable("its userinfo answer has no subject")
            }
            v = try verified(claims: reply.body)
        }
        v.accessToken = token
        return v
    }

    // MARK: Device authorization (RFC 8628)

    /// Asks the IdP's device endpoint for a user code: the answer of `POST .../device`.
    func startDevice(scopes: [String]?) async throws(ServiceError) -> EJSON {
        guard let endpoint = try await endpoints().device else {
            throw ServiceError(.authProviderNotFound, "\(config.type) has no device authorization endpoint configured")
        }
        var fields = [("client_id", config.clientId)]
        let scope = (scopes ?? config.scopes).joined(separator: " ")
        if !scope.isEmpty { fields.append(("scope", scope)) }
        let reply = try await http.postForm(endpoint, fields)
        let b = reply.body
        // Google names it verification_url.
        guard reply.ok, case .string(let device)? = b["device_code"], case .string(let user)? = b["user_code"],
            let uri = (b["verification_uri"] ?? b["verification_url"])?.stringValue
        else {
            let why = b["error"]?.stringValue.map { printable($0, limit: 40) } ?? "status \(reply.status)"
            throw ServiceError(.authError, "\(config.type) refused the device authorization (\(why))")
        }
        var answer: EJSONDocument = [
            "device_code": .string(device), "user_code": .string(user), "verification_uri": .string(uri),
            "interval": .int64(b["interval"]?.integerValue ?? 5), "expires_in": .int64(b["expires_in"]?.integerValue ?? 900),
        ]
        if case .string(let complete)? = b["verification_uri_complete"] { answer["verification_uri_complete"] = .string(complete) }
        return .document(answer)
    }

    /// One poll of the token endpoint with a device code: the identity once the person
    /// approved; until then 400 `AuthorizationPending` or `SlowDown`, and `ExpiredToken` or
    /// `AccessDenied` to end it.
    func pollDevice(_ code: String) async throws -> Verified {
        guard let endpoint = try await endpoints().token else { throw ServiceError(.authError, "\(config.type) has no token endpoint configured") }
        var fields = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", code),
            ("client_id", config.clientId),
        ]
        if let secret = config.clientSecret?.value { fields.append(("client_secret", secret)) }
        let reply = try await http.postForm(endpoint, fields)
        switch reply.body["error"]?.stringValue {
        case nil: break
        case "authorization_pending": throw ServiceError(.authorizationPending, "the person has not approved the sign-in yet")
        case "slow_down": throw ServiceError(.slowDown, "polling too fast: wait 5 seconds more between polls")
        case "expired_token": throw ServiceError(.expiredToken, "the device code expired: start again")
        case "access_denied": throw ServiceError(.accessDenied, "the person denied the sign-in")
        case let other?: throw ServiceError(.authError, "\(config.type) refused the device code (\(printable(other, limit: 40)))")
        }
        guard reply.ok, case .string(let access)? = reply.body["access_token"] else {
            throw ServiceError(.authError, "\(config.type) refused the device code (status \(reply.status))")
        }
        if config.isOpenIDConnect, case .string(let idToken)? = reply.body["id_token"] {
            return try await identity(idToken: idToken, nonce: nil, accessToken: access)
        }
        return try await identity(accessToken: access, checkClient: false)
    }

    /// An identity from OpenID Connect claims (an ID token or a userinfo answer).
    func verified(claims: EJSON) throws(ServiceError) -> Verified {
        let sub = claims["sub"]?.stringValue ?? ""
        let email = claims["email"]?.stringValue
        // Apple sends email_verified as the string "true".
        let verifiedEmail = claims["email_verified"] == .bool(true) || claims["email_verified"] == .string("true")
        var profile = try AppConfiguration.MetadataField.profile(config.metadataFields, from: claims, provider: "\(config.type)")
        if let email, verifiedEmail { profile["email"] = .string(email) }
        if case .string(let name)? = claims["name"] { profile["name"] = .string(name) }
        if case .string(let picture)? = claims["picture"] { profile["picture_url"] = .string(picture) }
        return Verified(subject: sub, profile: profile, email: email, emailVerified: verifiedEmail)
    }
}

/// A provider's endpoints, absolute.
struct OAuthEndpoints: Sendable {
    var issuer, authorization, token, userinfo, jwks, device: String?
}

/// An issuer's discovery document (`{issuer}/.well-known/openid-configuration`), kept an
/// hour; a failed fetch is not kept.
actor OIDCDiscovery {
    private let http: IdentityProviderHTTP
    private var cached: (doc: EJSON, at: ContinuousClock.Instant)?

    init(http: IdentityProviderHTTP) { self.http = http }

    func document(issuer: String) async throws(ServiceError) -> EJSON {
        if let cached, cached.at.duration(to: .now) < .seconds(3600) { return cached.doc }
        let reply = try await http.get(issuer + "/.well-known/openid-configuration")
        guard reply.ok, case .document = reply.body else {
            throw http.unavailable("its discovery document answered \(reply.status)")
        }
        // OpenID Connect Discovery 1.0, 4.3: the document must name the issuer it was fetched for.
        guard reply.body["issuer"]?.stringValue == issuer else {
            throw http.unavailable("its discovery document names another issuer")
        }
        cached = (reply.body, .now)
        return reply.body
    }
}
