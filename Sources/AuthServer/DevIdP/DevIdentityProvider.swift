import AuthProtocol
import Crypto
import Foundation
import Synchronization
import _CryptoExtras

/// The dev identity provider (docs/protocol/identity-providers.md section 8): in dev mode the server also
/// plays a GitHub-shaped OAuth 2.0 server and an OpenID Connect issuer, speaking the real
/// protocols (authorize, code, token exchange with secret and PKCE, user API, ID tokens
/// signed RS256 with a published JWKS, device authorization), so every flow runs with no
/// network and no real account, as Firebase's Auth emulator lets a developer sign in to
/// Google or GitHub without them.
///
/// Its state (who approved what) lives in this process; the client credentials, the
/// signing key and the subjects are derived from secrets kept in the database, so a user
/// signs in to the same account after a restart on the same data directory.
final class DevIdentityProvider: Sendable {
    /// The two emulated servers.
    enum Flavor: String, Sendable, CaseIterable {
        case github, oidc
        /// Facebook's OAuth dialog and the part of the Graph API sign-in uses.
        case facebook
        /// Path under this server.
        var path: String { "/dev/idp/\(rawValue)" }
    }

    /// A person at the dev IdP.
    struct Identity: Sendable, Equatable {
        var email: String
        var name: String
        var verified: Bool
    }

    /// A client registered at the dev IdP (the embedded `local` app's providers use these).
    struct Client: Sendable {
        var id: String
        var secret: String
    }

    /// An authorization request being shown, approved, or turned into tokens.
    struct Grant: Sendable {
        var flavor: Flavor
        var clientId: String
        var redirectURI: String?
        var scope: String
        var state: String?
        var nonce: String?
        var challenge: String?
        var identity: Identity?
        var expires: Int64
    }

    /// A device authorization (RFC 8628) waiting for the person.
    struct Device: Sendable {
        var grant: Grant
        var userCode: String
        var interval: Int64
        var lastPoll: Int64?
        var denied = false
    }

    private struct State {
        var identities: [Identity] = []
        /// Authorize pages shown, by their form token.
        var pages: [String: Grant] = [:]
        var codes: [String: Grant] = [:]
        var accessTokens: [String: Grant] = [:]
        var devices: [String: Device] = [:]
    }

    let clients: [Flavor: Client]
    let clock: ServerClock
    let origin: ServerOrigin
    private let subjectKey: SymmetricKey
    private let store: any AuthStore
    /// The store is in memory: no data directory keeps the key.
    private let ephemeral: Bool
    /// The RS256 key and its `kid` (a digest of its public key), loaded on first use: making
    /// one takes a while, and most runs of authsh never need it.
    private let signing = Mutex<(key: _RSA.Signing.PrivateKey, kid: String)?>(nil)
    private let state = Mutex(State())

    /// Codes and pages live 10 minutes, access tokens an hour, device codes 15 minutes.
    static let codeLifetime: Int64 = 600, tokenLifetime: Int64 = 3600, deviceLifetime: Int64 = 900

    /// Loads (or makes, on first use of a data directory) the client secrets and the RS256 key.
    init(store: any AuthStore, clock: ServerClock, origin: ServerOrigin, ephemeral: Bool) async throws {
        self.ephemeral = ephemeral
        self.clock = clock
        self.origin = origin
        let seed = try await store.signingKey(app: "dev-idp/", algorithm: "seed") { Secrets.randomBytes(32) }
        let key = SymmetricKey(data: seed)
        func derive(_ label: String, _ bytes: Int) -> String {
            Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: key)).prefix(bytes))
        }
        clients = [
            .github: Client(id: "Iv1." + derive("github-id", 8), secret: derive("github-secret", 20)),
            .oidc: Client(id: derive("oidc-id", 12) + ".apps.dev-idp.local", secret: derive("oidc-secret", 20)),
            .facebook: Client(
                id: String(UInt64(derive("facebook-id", 6), radix: 16).map { $0 % 900_000_000_000_000 + 100_000_000_000_000 } ?? 0),
                secret: derive("facebook-secret", 16)),
        ]
        subjectKey = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array("subjects".utf8), using: key)))
        self.store = store
    }

    /// The signing key, made once per data directory (2048-bit RSA), off the cooperative
    /// threads (making one takes a second in a debug build). A server without a data
    /// directory (in memory) shares one key per process.
    private func signingKey() async throws -> (key: _RSA.Signing.PrivateKey, kid: String) {
        if let loaded = signing.withLock({ $0 }) { return loaded }
        var der = try await store.existingSigningKey(app: "dev-idp/", algorithm: "RS256")
        if der == nil {
            let fresh = ephemeral ? try await Self.processKey() : try await Self.freshKey()
            der = try await store.signingKey(app: "dev-idp/", algorithm: "RS256") { fresh }
        }
        let key = try _RSA.Signing.PrivateKey(derRepresentation: der ?? [])
        let loaded = (key, String(Hex.encode(Array(SHA256.hash(data: key.publicKey.derRepresentation))).prefix(16)))
        signing.withLock { $0 = loaded }
        return loaded
    }

    private static func freshKey() async throws -> [UInt8] {
        try await BlockingThread.run { Result { Array(try _RSA.Signing.PrivateKey(keySize: .bits2048).derRepresentation) } }.get()
    }

    private static let sharedKey = Mutex<Task<[UInt8], any Error>?>(nil)

    private static func processKey() async throws -> [UInt8] {
        let task = sharedKey.withLock { shared in
            if let shared { return shared }
            let task = Task { try await freshKey() }
            shared = task
            return task
        }
        return try await task.value
    }

    /// Adds `oauth2-github`, `oauth2-facebook`, and `oauth2-google` and `oauth2-apple` (both
    /// on the OpenID Connect issuer) against this IdP to `providers` (the embedded `local`
    /// app's zero config), unless the app has them already.
    func enableSignIn(_ providers: inout AppConfiguration.Providers) {
        if providers.oauth["oauth2-github"] == nil, let c = clients[.github] {
            var p = OAuthProviderConfiguration(type: "oauth2-github", clientId: c.id, clientSecret: ConfigSecret(c.secret))
            p.authorizationEndpoint = Flavor.github.path + "/login/oauth/authorize"
            p.tokenEndpoint = Flavor.github.path + "/login/oauth/access_token"
            p.deviceAuthorizationEndpoint = Flavor.github.path + "/login/device/code"
            p.apiURL = Flavor.github.path + "/api"
            p.returnProviderTokens = true
            providers.oauth[p.type] = p
        }
        if providers.oauth["oauth2-facebook"] == nil, let c = clients[.facebook] {
            var p = OAuthProviderConfiguration(type: "oauth2-facebook", clientId: c.id, clientSecret: ConfigSecret(c.secret))
            p.authorizationEndpoint = Flavor.facebook.path + "/dialog/oauth"
            p.tokenEndpoint = Flavor.facebook.path + "/oauth/access_token"
            p.deviceAuthorizationEndpoint = Flavor.facebook.path + "/device/login"
            p.graphURL = Flavor.facebook.path
            p.returnProviderTokens = true
            providers.oauth[p.type] = p
        }
        // Apple is an OpenID Connect issuer too: the dev one stands in for it.
        for type in ["oauth2-google", "oauth2-apple"] where providers.oauth[type] == nil {
            guard let c = clients[.oidc] else { break }
            var p = OAuthProviderConfiguration(type: type, clientId: c.id, clientSecret: ConfigSecret(c.secret))
            // The dev issuer; its discovery document gives the other endpoints.
            p.issuer = Flavor.oidc.path
            p.authorizationEndpoint = nil
            p.tokenEndpoint = nil
            p.userinfoEndpoint = nil
            p.jwksURI = nil
            p.deviceAuthorizationEndpoint = nil
            p.returnProviderTokens = true
            // Apple answers with an ID token for `name email`; an OpenID Connect issuer needs `openid`.
            if type == "oauth2-apple" { p.scopes = ["openid", "name", "email"] }
            providers.oauth[p.type] = p
        }
    }

    /// The issuer URL of the OpenID Connect flavour, as its tokens and discovery name it.
    var issuer: String {
        get throws(ServiceError) { try origin.resolve(Flavor.oidc.path) }
    }

    /// The stable subject of an email: GitHub-style numeric for `github`, opaque digits for OIDC.
    func subject(of email: String, flavor: Flavor) -> String {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Array(email.lowercased().utf8), using: subjectKey))
        let n = mac.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch flavor {
        case .github: return String(n % 90_000_000 + 10_000_000)
        case .facebook: return String(n % 9_000_000_000_000_000 + 1_000_000_000_000_000)
        case .oidc: return String(n)
        }
    }

    // MARK: Identities

    /// The identities already used here, newest first (the authorize page lists them).
    var identities: [Identity] { state.withLock { $0.identities } }

    /// Checks and remembers an identity.
    func remember(_ identity: Identity) throws(ServiceError) -> Identity {
        let email = identity.email.trimmingCharacters(in: .whitespaces)
        guard email.count <= 254, email.split(separator: "@").count == 2, !email.contains(" "),
            email.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw ServiceError(.invalidParameter, "identity email must be an address like ada@example.com") }
        var name = identity.name.trimmingCharacters(in: .whitespaces)
        if name.isEmpty { name = String(email.split(separator: "@")[0]) }
        guard name.count <= 100 else { throw ServiceError(.invalidParameter, "identity name is longer than 100 characters") }
        let checked = Identity(email: email, name: name, verified: identity.verified)
        state.withLock { s in
            s.identities.removeAll { $0.email.lowercased() == email.lowercased() }
            s.identities.insert(checked, at: 0)
            if s.identities.count > 50 { s.identities.removeLast() }
        }
        return checked
    }

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

    // MARK: OpenID Connect

    /// The claims of an identity (ID token and userinfo).
    func claims(_ identity: Identity, scope: String) -> EJSONDocument {
        var c: EJSONDocument = ["sub": .string(subject(of: identity.email, flavor: .oidc))]
        let scopes = scope.split(separator: " ")
        if scopes.contains("email") {
            c["email"] = .string(identity.email)
            c["email_verified"] = .bool(identity.verified)
        }
        // `name` is Apple's scope for it.
        if scopes.contains("profile") || scopes.contains("name") {
            c["name"] = .string(identity.name)
            if let picture = try? origin.resolve("/dev/idp/avatar.svg") { c["picture"] = .string(picture) }
        }
        return c
    }

    /// An RS256 ID token for `grant`.
    func idToken(_ grant: Grant, identity: Identity) async throws -> String {
        var c = claims(identity, scope: grant.scope)
        let now = clock.now
        c["iss"] = .string(try issuer)
        c["aud"] = .string(grant.clientId)
        c["iat"] = .int64(now)
        c["auth_time"] = .int64(now)
        c["exp"] = .int64(now + Self.tokenLifetime)
        if let nonce = grant.nonce { c["nonce"] = .string(nonce) }
        return try await sign(.document(c))
    }

    /// A JWT of `payload`, signed RS256 with the dev IdP's key.
    func sign(_ payload: EJSON) async throws -> String {
        let (signingKey, keyId) = try await signingKey()
        let header: EJSON = ["alg": "RS256", "typ": "JWT", "kid": .string(keyId)]
        let input = Base64.encode(header.encoded(.relaxed), urlSafe: true) + "." + Base64.encode(payload.encoded(.relaxed), urlSafe: true)
        let signature = try signingKey.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64.encode(Array(signature.rawRepresentation), urlSafe: true)
    }

    /// The JWKS of the signing key.
    var jwks: EJSON {
        get async throws {
            let (signingKey, keyId) = try await signingKey()
            let p = try signingKey.publicKey.getKeyPrimitives()
            return [
                "keys": [
                    [
                        "kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(keyId),
                        "n": .string(Base64.encode(Array(p.modulus), urlSafe: true)),
                        "e": .string(Base64.encode(Array(p.publicExponent), urlSafe: true)),
                    ]
                ]
            ]
        }
    }

    // MARK: Device authorization (RFC 8628)

    /// A new device authorization: the answer of the device endpoint.
    func startDevice(_ flavor: Flavor, clientId: String?, scope: String?, verificationURI: String) throws(TokenError) -> EJSON {
        guard clientId == clients[flavor]?.id else { throw TokenError(error: "invalid_client", description: "unknown client") }
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        var rng = SystemRandomNumberGenerator()
        let raw = String((0..<8).map { _ in letters[Int.random(in: 0..<letters.count, using: &rng)] })
        let userCode = String(raw.prefix(4) + "-" + raw.suffix(4))
        let deviceCode = Secrets.randomHex(bytes: 20)
        let grant = Grant(
            flavor: flavor, clientId: clientId ?? "", redirectURI: nil,
            scope: scope ?? (flavor == .oidc ? "openid" : ""), state: nil, nonce: nil, challenge: nil,
            identity: nil, expires: clock.now + Self.deviceLifetime)
        state.withLock { s in
            s.devices = s.devices.filter { $0.value.grant.expires > clock.now }
            s.devices[deviceCode] = Device(grant: grant, userCode: userCode, interval: 5)
        }
        var answer: EJSONDocument = [
            "device_code": .string(deviceCode), "user_code": .string(userCode),
            "verification_uri": .string(verificationURI), "expires_in": .int64(Self.deviceLifetime), "interval": 5,
        ]
        if flavor == .oidc {
            answer["verification_uri_complete"] = .string(verificationURI + "?" + FormEncoding.encode([("user_code", userCode)]))
        }
        return .document(answer)
    }

    /// The person's answer to a device code (the verification page, or `auth.dev.idp.approve`).
    func decideDevice(userCode: String, identity: Identity?) throws(ServiceError) {
        let code = userCode.uppercased().filter { $0.isLetter }
        let checked = try identity.map { i throws(ServiceError) in try remember(i) }
        let found = state.withLock { s -> Bool in
            guard let (key, device) = s.devices.first(where: { $0.value.userCode.filter(\.isLetter) == code }),
                device.grant.expires > clock.now, device.grant.identity == nil, !device.denied
            else { return false }
            if let checked { s.devices[key]?.grant.identity = checked } else { s.devices[key]?.denied = true }
            return true
        }
        guard found else { throw ServiceError(.invalidParameter, "dev IdP: no pending device code \(printable(userCode, limit: 40))") }
    }

    /// One poll of the token endpoint with a device code.
    private func pollDevice(_ code: String, clientId: String) throws(TokenError) -> (Grant, Identity) {
        let now = clock.now
        let outcome: Result<(Grant, Identity), TokenError> = state.withLock { s in
            guard var device = s.devices[code], device.grant.clientId == clientId else {
                return .failure(TokenError(error: "invalid_grant", description: "unknown device code"))
            }
            if device.grant.expires <= now {
                s.devices[code] = nil
                return .failure(TokenError(error: "expired_token", description: "the device code expired"))
            }
            if device.denied {
                s.devices[code] = nil
                return .failure(TokenError(error: "access_denied", description: "the person denied the request"))
            }
            if let identity = device.grant.identity {
                s.devices[code] = nil
                return .success((device.grant, identity))
            }
            defer { s.devices[code] = device }
            if let last = device.lastPoll, now - last < device.interval {
                device.interval += 5
                device.lastPoll = now
                return .failure(TokenError(error: "slow_down", description: "polling too fast"))
            }
            device.lastPoll = now
            return .failure(TokenError(error: "authorization_pending", description: "waiting for the person"))
        }
        return try outcome.get()
    }
}
