// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Synchronization

/// One served app at run time: its configuration (which the dev API may change) and what is
/// built from it.
final class AppRuntime: Sendable {
    let id: String
    private struct State {
        var config: AppConfiguration
        var customToken: CustomTokenVerifier?
        var oauth: [String: OAuthProvider]
    }
    private let state: Mutex<State>
    private let clock: ServerClock
    private let origin: ServerOrigin

    init(_ config: AppConfiguration, clock: ServerClock, origin: ServerOrigin) async throws(ConfigError) {
        id = config.id
        self.clock = clock
        self.origin = origin
        let verifier = try await config.providers.customToken.asyncMap { c throws(ConfigError) in
            try await CustomTokenVerifier(c, clock: clock)
        }
        state = Mutex(State(config: config, customToken: verifier, oauth: Self.oauth(config, origin: origin, clock: clock)))
    }

    private static func oauth(_ config: AppConfiguration, origin: ServerOrigin, clock: ServerClock) -> [String: OAuthProvider] {
        config.providers.oauth.mapValues { OAuthProvider($0, origin: origin, clock: clock) }
    }

    var config: AppConfiguration { state.withLock { $0.config } }
    var customToken: CustomTokenVerifier? { state.withLock { $0.customToken } }
    /// The origins the config lists for browsers (nil: the server's default).
    var allowedRequestOrigins: RequestOrigins? { state.withLock { $0.config.allowedRequestOrigins } }

    /// The origins whose pages may call this app: the config's list, else the server's default
    /// (any origin in dev mode, none otherwise).
    func requestOrigins(dev: Bool) -> RequestOrigins { allowedRequestOrigins ?? (dev ? .all : .none) }
    /// The app's passkeys: the config's, else dev mode's (``WebAuthnConfiguration/dev``), else none.
    func webauthn(dev: Bool) -> WebAuthnConfiguration? { config.webauthn ?? (dev ? .dev : nil) }
    /// The enabled `oauth2-*` provider of that key, or nil.
    func oauth(_ type: String) -> OAuthProvider? { state.withLock { $0.oauth[type] } }

    /// Replaces the configuration (dev API). The id and token signing cannot change at run time.
    func update(_ config: AppConfiguration) async throws(ConfigError) {
        let current = self.config
        guard config.id == current.id else { throw ConfigError(key: "id", reason: "cannot be changed at run time") }
        guard config.tokenSigningAlgorithm == current.tokenSigningAlgorithm else {
            throw ConfigError(key: "tokenSigningAlgorithm", reason: "cannot be changed at run time")
        }
        let verifier = try await config.providers.customToken.asyncMap { c throws(ConfigError) in
            try await CustomTokenVerifier(c, clock: clock)
        }
        // A provider whose settings did not change keeps its caches (discovery, JWKS).
        let kept = state.withLock { $0.oauth }
        var oauth = Self.oauth(config, origin: origin, clock: clock)
        for (type, provider) in kept where provider.config == config.providers.oauth[type] { oauth[type] = provider }
        state.withLock { $0 = State(config: config, customToken: verifier, oauth: oauth) }
    }

    /// Whether a provider of wire name `type` is enabled now.
    func hasProvider(_ type: String) -> Bool {
        let providers = config.providers
        switch type {
        case ProviderType.anonymous: return providers.anonymous
        case ProviderType.userpass: return providers.userpass != nil
        case ProviderType.apiKey: return providers.apiKey
        case ProviderType.customFunction: return providers.customFunction != nil
        case ProviderType.customToken: return providers.customToken != nil
        default: return oauth(type) != nil
        }
    }

    /// The providers enabled now, by wire name.
    var providerNames: [String] {
        [ProviderType.anonymous, ProviderType.userpass, ProviderType.apiKey, ProviderType.customFunction, ProviderType.customToken]
            .filter(hasProvider) + state.withLock { $0.oauth.keys.sorted() }
    }

    /// The stable `provider_id` of one of this app's providers (24 hex digits).
    func providerId(_ type: String) -> String {
        String(Hex.encode(Secrets.digest("\(id)/\(type)")).prefix(24))
    }
}

extension Optional {
    func asyncMap<U, E: Error>(_ transform: (Wrapped) async throws(E) -> U) async throws(E) -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
