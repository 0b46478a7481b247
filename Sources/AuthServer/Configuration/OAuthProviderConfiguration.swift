// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// One `oauth2-*` provider of an app (docs/protocol/identity-providers.md section 1): GitHub, Google, Apple,
/// Facebook, or any OpenID Connect issuer or OAuth 2.0 server (`oauth2-<name>`).
///
/// Endpoints left out take the real provider's values. An endpoint that starts with `/` is a
/// path on this server (the dev identity provider's endpoints are given that way).
public struct OAuthProviderConfiguration: Sendable, Equatable {
    /// What protocol the provider speaks and where its defaults come from.
    public enum Kind: String, Sendable {
        case github, google, apple, facebook
        /// `oauth2-<name>`: OpenID Connect when `issuer` is set (discovery), plain OAuth 2.0
        /// with explicit endpoints otherwise.
        case generic
    }

    /// The provider key, `oauth2-github` for instance (the identities' `provider_type`).
    public var type: String
    public var kind: Kind
    public var clientId: String
    public var clientSecret: ConfigSecret?
    /// Scopes asked for in the redirect, loopback and device flows.
    public var scopes: [String]
    /// Client redirect URIs allowed in the redirect flow: exact match, except a loopback URI,
    /// which matches any port (RFC 8252).
    public var redirectURIs: [String] = []
    /// IdP claims copied into the user's profile `data`.
    public var metadataFields: [AppConfiguration.MetadataField] = []
    /// Add the IdP's tokens to the login answer (`provider_access_token`, `provider_id_token`).
    public var returnProviderTokens = false
    public var issuer: String?
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var userinfoEndpoint: String?
    public var jwksURI: String?
    public var deviceAuthorizationEndpoint: String?
    /// Facebook's Graph API.
    public var graphURL: String?
    /// GitHub's REST API.
    public var apiURL: String?
    /// How long one request to the IdP may take (default 10 s); past it the login is 502
    /// `IdentityProviderUnavailable`.
    public var timeoutSeconds: Int64 = 10

    /// A provider of `type` with the real provider's defaults.
    public init(type: String, clientId: String, clientSecret: ConfigSecret? = nil) {
        self.type = type
        self.kind = Self.kind(of: type)
        self.clientId = clientId
        self.clientSecret = clientSecret
        let d = Self.defaults(kind)
        scopes = d.scopes
        issuer = d.issuer
        authorizationEndpoint = d.authorization
        tokenEndpoint = d.token
        userinfoEndpoint = d.userinfo
        jwksURI = d.jwks
        deviceAuthorizationEndpoint = d.device
        graphURL = d.graph
        apiURL = d.api
    }

    /// The kind a provider key names.
    public static func kind(of type: String) -> Kind {
        Kind(rawValue: String(type.dropFirst("oauth2-".count))) ?? .generic
    }

    /// True when the provider proves identities with OpenID Connect ID tokens.
    public var isOpenIDConnect: Bool {
        switch kind {
        case .google, .apple: true
        case .github, .facebook: false
        case .generic: issuer != nil || jwksURI != nil
        }
    }

    struct Defaults {
        var scopes: [String] = []
        var issuer, authorization, token, userinfo, jwks, device, graph, api: String?
    }

    /// The real providers' endpoints (as of 2026).
    static func defaults(_ kind: Kind) -> Defaults {
        switch kind {
        case .github:
            Defaults(
                scopes: ["read:user", "user:email"],
                authorization: "https://github.com/login/oauth/authorize",
                token: "https://github.com/login/oauth/access_token",
                device: "https://github.com/login/device/code", api: "https://api.github.com")
        case .google:
            Defaults(
                scopes: ["openid", "email", "profile"], issuer: "https://accounts.google.com",
                authorization: "https://accounts.google.com/o/oauth2/v2/auth",
                token: "https://oauth2.googleapis.com/token",
                userinfo: "https://openidconnect.googleapis.com/v1/userinfo",
                jwks: "https://www.googleapis.com/oauth2/v3/certs",
                device: "https://oauth2.googleapis.com/device/code")
        case .apple:
            Defaults(
                scopes: ["name", "email"], issuer: "https://appleid.apple.com",
                authorization: "https://appleid.apple.com/auth/authorize",
                token: "https://appleid.apple.com/auth/token", jwks: "https://appleid.apple.com/auth/keys")
        case .facebook:
            Defaults(
                scopes: ["public_profile", "email"],
                authorization: "https://www.facebook.com/v19.0/dialog/oauth",
                token: "https://graph.facebook.com/v19.0/oauth/access_token",
                graph: "https://graph.facebook.com/v19.0")
        case .generic:
            Defaults(scopes: ["openid", "email", "profile"])
        }
    }
}

extension OAuthProviderConfiguration {
    static let endpointKeys = [
        "issuer", "authorizationEndpoint", "tokenEndpoint", "userinfoEndpoint", "jwksURI",
        "deviceAuthorizationEndpoint", "graphURL", "apiURL",
    ]

    /// Reads one provider object; `type` is its key. A config that sets `issuer` to another
    /// issuer than the real provider's drops that provider's other default endpoints: they
    /// come from the new issuer's discovery document instead.
    init(type: String, reader p: inout ConfigReader) throws(ConfigError) {
        guard let clientId = try p.string("clientId"), !clientId.isEmpty else {
            throw ConfigError(key: p.keyPath("clientId"), reason: "missing: every OAuth provider needs the client id the IdP gave the app")
        }
        self.init(type: type, clientId: clientId, clientSecret: try p.secret("clientSecret"))
        scopes = try p.strings("scopes") ?? scopes
        redirectURIs = try p.strings("redirectURIs") ?? []
        returnProviderTokens = try p.bool("returnProviderTokens", default: false)
        timeoutSeconds = try p.integer("timeoutSeconds", in: 1...120) ?? timeoutSeconds
        metadataFields = try AppConfiguration.MetadataField.list(&p)
        var explicit: [String: String] = [:]
        for key in Self.endpointKeys {
            if let url = try p.string(key) {
                guard url.hasPrefix("https://") || url.hasPrefix("http://") || url.hasPrefix("/") else {
                    throw ConfigError(key: p.keyPath(key), reason: "must be an http:// or https:// URL, or a path on this server")
                }
                var u = url
                while u.count > 1 && u.hasSuffix("/") { u.removeLast() }
                explicit[key] = u
            }
        }
        if let issuer = explicit["issuer"], issuer != self.issuer {
            authorizationEndpoint = nil
            tokenEndpoint = nil
            userinfoEndpoint = nil
            jwksURI = nil
            deviceAuthorizationEndpoint = nil
        }
        issuer = explicit["issuer"] ?? issuer
        authorizationEndpoint = explicit["authorizationEndpoint"] ?? authorizationEndpoint
        tokenEndpoint = explicit["tokenEndpoint"] ?? tokenEndpoint
        userinfoEndpoint = explicit["userinfoEndpoint"] ?? userinfoEndpoint
        jwksURI = explicit["jwksURI"] ?? jwksURI
        deviceAuthorizationEndpoint = explicit["deviceAuthorizationEndpoint"] ?? deviceAuthorizationEndpoint
        graphURL = explicit["graphURL"] ?? graphURL
        apiURL = explicit["apiURL"] ?? apiURL
        if kind == .generic && issuer == nil && (authorizationEndpoint == nil || tokenEndpoint == nil || userinfoEndpoint == nil) {
            throw ConfigError(
                key: p.keyPath("issuer"),
                reason: "missing: give an OpenID Connect issuer, or authorizationEndpoint, tokenEndpoint and userinfoEndpoint")
        }
        for (i, uri) in redirectURIs.enumerated() where RedirectURI(uri) == nil {
            throw ConfigError(key: p.keyPath("redirectURIs[\(i)]"), reason: "must be an absolute http:// or https:// URI without a fragment")
        }
    }

    /// The provider as a config-file object.
    var ejson: EJSON {
        var doc: EJSONDocument = [
            "enabled": true, "clientId": .string(clientId),
            "scopes": .array(scopes.map(EJSON.string)),
            "redirectURIs": .array(redirectURIs.map(EJSON.string)),
            "returnProviderTokens": .bool(returnProviderTokens),
            "timeoutSeconds": .int64(timeoutSeconds),
            "metadataFields": AppConfiguration.MetadataField.ejson(metadataFields),
        ]
        if let clientSecret { doc["clientSecret"] = clientSecret.source }
        let endpoints: [(String, String?)] = [
            ("issuer", issuer), ("authorizationEndpoint", authorizationEndpoint), ("tokenEndpoint", tokenEndpoint),
            ("userinfoEndpoint", userinfoEndpoint), ("jwksURI", jwksURI),
            ("deviceAuthorizationEndpoint", deviceAuthorizationEndpoint), ("graphURL", graphURL), ("apiURL", apiURL),
        ]
        for (key, value) in endpoints { if let value { doc[key] = .string(value) } }
        return .document(doc)
    }
}

extension AppConfiguration.MetadataField {
    /// Reads `metadataFields` (an array of `{required, name, field_name}`).
    static func list(_ p: inout ConfigReader) throws(ConfigError) -> [Self] {
        guard let v = p.value("metadataFields") else { return [] }
        guard case .array(let items) = v else { throw p.mismatch("metadataFields", "an array", v) }
        var out: [Self] = []
        for (i, item) in items.enumerated() {
            var f = try ConfigReader(item, path: p.keyPath("metadataFields[\(i)]"))
            guard let name = try f.string("name") else { throw ConfigError(key: f.keyPath("name"), reason: "missing") }
            let fieldName = try f.string("field_name") ?? name
            out.append(.init(required: try f.bool("required", default: false), name: name, fieldName: fieldName))
            try f.finish()
        }
        return out
    }

    static func ejson(_ fields: [Self]) -> EJSON {
        .array(fields.map { ["required": .bool($0.required), "name": .string($0.name), "field_name": .string($0.fieldName)] })
    }

    /// Copies the configured claims of `claims` into a profile; a required one missing is an error.
    static func profile(_ fields: [Self], from claims: EJSON, provider: String) throws(ServiceError) -> EJSONDocument {
        var profile = EJSONDocument()
        for field in fields {
            var value: EJSON? = claims
            for part in field.name.split(separator: ".") { value = value?[String(part)] }
            if let value, value != .null {
                profile[field.fieldName] = value
            } else if field.required {
                throw ServiceError(.authError, "\(provider): required metadata field '\(field.name)' is missing")
            }
        }
        return profile
    }
}
