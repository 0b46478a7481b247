// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
import JWTKit
import NIOCore

/// Verifies `custom-token` logins: JWTs that another service signed (HS256 or RS256 keys,
/// or keys from a JWKS URL, refetched every 10 minutes).
final class CustomTokenVerifier: Sendable {
    let config: AppConfiguration.CustomToken
    private let clock: ServerClock
    private let staticKeys: JWTKeyCollection?
    private let jwksCache: JWKSCache

    init(_ config: AppConfiguration.CustomToken, clock: ServerClock) async throws(ConfigError) {
        self.config = config
        jwksCache = JWKSCache(timeout: .seconds(config.timeoutSeconds))
        self.clock = clock
        if config.signingKeys.isEmpty {
            staticKeys = nil
            return
        }
        let keys = JWTKeyCollection()
        for (i, key) in config.signingKeys.enumerated() {
            if config.signingAlgorithm == "RS256" {
                do {
                    await keys.add(
                        rsa: try Insecure.RSA.PublicKey(pem: key), digestAlgorithm: .sha256,
                        kid: JWKIdentifier(string: "key\(i)"))
                } catch {
                    throw ConfigError(key: "providers.custom-token.signingKeys[\(i)]", reason: "not an RSA public key in PEM")
                }
            } else {
                await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "key\(i)"))
            }
        }
        staticKeys = keys
    }

    /// Claims of a verified custom token.
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var aud: AudienceClaim?
        var nbf: NotBeforeClaim?
        var iat: IssuedAtClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The external id (`sub`), the profile fields the metadata config copies, and the email
    /// the token vouches for: its `email` claim, unless `email_verified` says false (the app's
    /// own issuer signed it, so it speaks for the address as an IdP's ID token does).
    func verify(_ token: String) async throws(ServiceError) -> (externalId: String, profile: EJSONDocument, email: String?) {
        let payload: [UInt8]
        let claims: Claims
        do {
            let keys = try await collection()
            claims = try await keys.verify(token, as: Claims.self, iteratingKeys: true)
            // The profile fields and the email are read from the payload as EJSON.
            payload = try Self.payloadBytes(token)
        } catch let e as ServiceError {
            throw e
        } catch {
            throw ServiceError(.authError, "invalid custom token: signature or format is not valid")
        }
        // Compared as Doubles: a claim may be any JSON number (1e300 must not trap).
        let now = Double(clock.now)
        guard claims.exp.value.timeIntervalSince1970 > now else {
            throw ServiceError(.authError, "invalid custom token: token expired")
        }
        if let nbf = claims.nbf, nbf.value.timeIntervalSince1970 > now + Self.leeway {
            throw ServiceError(.authError, "invalid custom token: token not valid yet (nbf)")
        }
        if let iat = claims.iat, iat.value.timeIntervalSince1970 > now + Self.leeway {
            throw ServiceError(.authError, "invalid custom token: token issued in the future (iat)")
        }
        if let audience = config.audience {
            guard let aud = claims.aud, aud.value.contains(where: audience.contains) else {
                throw ServiceError(.authError, "invalid custom token: audience does not match")
            }
        }
        let all = (try? EJSON(parsing: payload)) ?? [:]
        let profile = try AppConfiguration.MetadataField.profile(config.metadataFields, from: all, provider: "invalid custom token")
        let unverified = all["email_verified"] == .bool(false) || all["email_verified"] == .string("false")
        let email = unverified ? nil : all["email"]?.stringValue.flatMap(Emails.vouched)
        return (claims.sub.value, profile, email)
    }

    /// Seconds of clock skew allowed between the token's issuer and this server, for nbf and iat.
    static let leeway: Double = 30

    private static func payloadBytes(_ token: String) throws -> [UInt8] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64.decode(String(parts[1])) else {
            throw ServiceError(.authError, "invalid custom token: not a JWT")
        }
        return bytes
    }

    private func collection() async throws -> JWTKeyCollection {
        if let staticKeys { return staticKeys }
        guard let uri = config.jwkURI else { throw ServiceError(.authError, "invalid custom token: no keys configured") }
        return try await jwksCache.keys(from: uri, now: clock.now)
    }
}

/// The keys of a JWKS URL, fetched at most every 10 minutes. A fetch that failed is not tried
/// again for ``failureMemory`` seconds: logins meanwhile get its error, so a JWKS URL that is
/// down is not asked again by every login.
actor JWKSCache {
    static let failureMemory: Int64 = 10
    /// How long a fetch may take (the config's `timeoutSeconds`).
    let timeout: TimeAmount
    private var cached: (keys: JWTKeyCollection, fetchedAt: Int64)?
    private var failure: (error: any Error, at: Int64)?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func keys(from uri: String, now: Int64) async throws -> JWTKeyCollection {
        if let cached, now - cached.fetchedAt < 600 { return cached.keys }
        if let failure, now - failure.at < Self.failureMemory, now >= failure.at { throw failure.error }
        do {
            let keys = try await fetch(uri)
            cached = (keys, now)
            failure = nil
            return keys
        } catch {
            failure = (error, now)
            throw error
        }
    }

    private func fetch(_ uri: String) async throws -> JWTKeyCollection {
        var request = HTTPClientRequest(url: uri)
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        guard response.status == .ok else {
            throw ServiceError(.authError, "invalid custom token: the JWKS URL answered \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: 1 << 20)
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: String(buffer: body))
        return keys
    }
}
