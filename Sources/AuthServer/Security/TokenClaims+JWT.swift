// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import JWTKit

/// Any token this server issued, before its type is checked. Expiry is checked against the
/// server's clock (which dev mode moves), not in `verify(using:)`.
struct IssuedTokenClaims: JWTPayload {
    var exp: Int64
    var iat: Int64
    var sub: String
    var typ: String
    /// Access tokens: the session id.
    var iss: String?
    /// Refresh tokens: the session id.
    var baas_id: String?
    var baas_device_id: String?
    var baas_domain_id: String?
    var user_data: EJSONDocument?
    /// Access tokens: when the person last proved who they are (their session's login).
    var auth_time: Int64?
    /// How the session's login proved the person (``AuthenticationMethods``).
    var amr: [String]?

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The session the token belongs to.
    var session: String? { typ == "access" ? iss : baas_id }
}

extension AccessTokenClaims: JWTPayload {
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension RefreshTokenClaims: JWTPayload {
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A token's claims as one JSON object, for jwt-kit to sign (ES256 keys): the claims an
/// access token carries are built once, for either algorithm (``TokenIssuer``).
struct DocumentPayload: JWTPayload {
    var document: EJSONDocument

    init(document: EJSONDocument) { self.document = document }

    init(from decoder: any Decoder) throws { document = try EJSONDocument(from: decoder) }

    func encode(to encoder: any Encoder) throws { try document.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
