// SPDX-License-Identifier: Apache-2.0
/// The claims of an access token (docs/protocol/wire-protocol.md section 5).
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    /// Expiry, integer Unix seconds.
    public var exp: Int64
    /// Issued at, integer Unix seconds.
    public var iat: Int64
    /// The user id.
    public var sub: String
    /// Always `"access"`.
    public var typ: String
    /// The session id.
    public var iss: String
    public var baas_device_id: String
    /// The app id.
    public var baas_domain_id: String
    /// The user's custom data document (`customData` on the client).
    public var user_data: EJSONDocument?
    /// When the person last proved who they are: the login that started the session (a
    /// refresh keeps it). What `recentLoginSeconds` is checked against.
    public var auth_time: Int64?
    /// How that login proved who the person is (RFC 8176: `pwd`, `otp`, `mfa`); absent when
    /// no registered method applies (anonymous, API key, an identity provider's own login).
    public var amr: [String]?

    public init(
        exp: Int64, iat: Int64, sub: String, session: String, deviceId: String, appId: String,
        userData: EJSONDocument?, authTime: Int64? = nil, methods: [String] = []
    ) {
        self.exp = exp
        self.iat = iat
        self.sub = sub
        self.typ = "access"
        self.iss = session
        self.baas_device_id = deviceId
        self.baas_domain_id = appId
        self.user_data = userData
        self.auth_time = authTime
        self.amr = methods.isEmpty ? nil : methods
    }
}

/// The claims of a refresh token (docs/protocol/wire-protocol.md section 5).
public struct RefreshTokenClaims: Codable, Sendable, Equatable {
    /// The identity a refresh token was issued for.
    public struct Identity: Codable, Sendable, Equatable {
        public var id: String
        public var provider_type: String
        public var provider_id: String

        public init(id: String, providerType: String, providerId: String) {
            self.id = id
            self.provider_type = providerType
            self.provider_id = providerId
        }
    }

    public var exp: Int64
    public var iat: Int64
    /// The user id.
    public var sub: String
    /// Always `"refresh"`.
    public var typ: String
    /// The session id.
    public var baas_id: String
    public var baas_identity: Identity
    public var baas_device_id: String
    /// The app id (authsh adds it so a token of another app is refused before any lookup).
    public var baas_domain_id: String?
    /// The session's authentication methods, as its access tokens carry them (authsh: a
    /// refresh keeps them).
    public var amr: [String]?

    public init(
        exp: Int64, iat: Int64, sub: String, session: String, identity: Identity, deviceId: String,
        appId: String, methods: [String] = []
    ) {
        self.exp = exp
        self.iat = iat
        self.sub = sub
        self.typ = "refresh"
        self.baas_id = session
        self.baas_identity = identity
        self.baas_device_id = deviceId
        self.baas_domain_id = appId
        self.amr = methods.isEmpty ? nil : methods
    }
}
