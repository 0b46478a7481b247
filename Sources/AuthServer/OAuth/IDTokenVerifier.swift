// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import JWTKit

/// Verifies an OpenID Connect ID token: an asymmetric signature by a key of the issuer's
/// JWKS, then the issuer, the audience (and the authorized party), the expiry, the issue time and (when the flow sent
/// one) the nonce. Each failure is a 401 `AuthError` saying which check failed, never what
/// the token holds.
struct IDTokenVerifier {
    /// The `iss` values accepted (Google issues both forms of its name).
    var issuers: [String]
    /// The client id the token must be issued to.
    var audience: String
    /// The nonce the server sent in this flow, if it sent one.
    var nonce: String?
    var now: Int64

    /// The algorithms an IdP may sign with. `none` and the HMAC ones are refused: with a
    /// public key as the HMAC secret anyone could sign.
    static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
    /// Seconds of clock skew allowed for `iat` and `exp`.
    static let leeway: Int64 = 30

    /// Nothing of the payload is decoded by jwt-kit: the claims are read as EJSON below.
    private struct Signed: JWTPayload {
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The token's claims, once every check passed.
    func verify(_ token: String, keys: JWKSKeySet) async throws(ServiceError) -> EJSON {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 16_384, parts.count == 3,
            let headerBytes = Base64.decode(String(parts[0])), let header = try? EJSON(parsing: headerBytes),
            let payloadBytes = Base64.decode(String(parts[1])), let claims = try? EJSON(parsing: payloadBytes),
            case .document = claims
        else { throw Self.invalid("not a JWT") }
        guard case .string(let alg)? = header["alg"], Self.algorithms.contains(alg) else {
            throw Self.invalid(
                "signing algorithm \(printable(header["alg"]?.stringValue ?? "missing", limit: 20)) is not accepted (RS256, ES256 and their kin only)"
            )
        }
        let kid = header["kid"]?.stringValue
        let collection = try await keys.keys(for: kid)
        do {
            _ = try await collection.verify(token, as: Signed.self)
        } catch {
            throw Self.invalid("bad signature")
        }
        guard case .string(let iss)? = claims["iss"], issuers.contains(iss) else { throw Self.invalid("wrong issuer") }
        let aud: [String]
        switch claims["aud"] {
        case .string(let a)?: aud = [a]
        case .array(let list)?: aud = list.compactMap(\.stringValue)
        default: aud = []
        }
        guard aud.contains(audience) else { throw Self.invalid("wrong audience") }
        // OIDC Core 3.1.3.7: a token for several audiences must say which party it was issued
        // to (azp), and an azp present must be this client.
        if aud.count > 1 || claims["azp"] != nil {
            guard claims["azp"]?.stringValue == audience else { throw Self.invalid("authorized party (azp) is not this client") }
        }
        guard let exp = claims["exp"].flatMap(Self.seconds) else { throw Self.invalid("no expiry (exp)") }
        guard exp + Double(Self.leeway) > Double(now) else { throw Self.invalid("expired") }
        if let iat = claims["iat"].flatMap(Self.seconds), iat > Double(now + Self.leeway) {
            throw Self.invalid("issued in the future (iat)")
        }
        if let nonce {
            guard claims["nonce"]?.stringValue == nonce else { throw Self.invalid("wrong nonce") }
        }
        guard case .string(let sub)? = claims["sub"], !sub.isEmpty, sub.utf8.count <= 255 else {
            throw Self.invalid("no subject (sub)")
        }
        return claims
    }

    static func invalid(_ why: String) -> ServiceError {
        ServiceError(.authError, "invalid ID token: \(why)")
    }

    /// A numeric date claim as seconds (any JSON number; a huge one must not trap).
    static func seconds(_ value: EJSON) -> Double? {
        switch value {
        case .int32(let v): Double(v)
        case .int64(let v): Double(v)
        case .double(let v) where v.isFinite: v
        default: nil
        }
    }
}
