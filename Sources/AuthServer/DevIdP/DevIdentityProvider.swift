// SPDX-License-Identifier: Apache-2.0
import AuthStorage
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

    struct State {
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
    let store: any SigningKeyStore
    /// The store is in memory: no data directory keeps the key.
    let ephemeral: Bool
    /// The RS256 key and its `kid` (a digest of its public key), loaded on first use: making
    /// one takes a while, and most runs of authsh never need it.
    let signing = Mutex<(key: _RSA.Signing.PrivateKey, kid: String)?>(nil)
    let state = Mutex(State())

    /// Codes and pages live 10 minutes, access tokens an hour, device codes 15 minutes.
    static let codeLifetime: Int64 = 600, tokenLifetime: Int64 = 3600, deviceLifetime: Int64 = 900

    /// Loads (or makes, on first use of a data directory) the client secrets and the RS256 key.
    init(store: any SigningKeyStore, clock: ServerClock, origin: ServerOrigin, ephemeral: Bool) async throws {
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
}
