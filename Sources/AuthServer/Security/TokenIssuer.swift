// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Crypto
import JWTKit
import Synchronization

/// Signs and verifies the server's access and refresh tokens, with one key per app: HS256
/// keys in ``HS256Tokens`` (on the caller's thread), ES256 keys in jwt-kit.
///
/// The key id (`kid`) of every token is its app id, so a token of another app is checked
/// against that app's key and then refused by the route for naming another app.
final class TokenIssuer: Sendable {
    private let keys = JWTKeyCollection()
    private let clock: ServerClock
    /// ES256 public keys for the JWKS document, by app id.
    private let publicKeys: [String: EJSON]
    /// The synchronous path for HS256 tokens.
    private let hs256: HS256Tokens
    /// Access tokens whose signature was checked already, with their claims. A signature check
    /// gives the same answer every time (keys never change while the server runs), so clients
    /// that send one access token with many requests pay for it once; expiry and type are
    /// still checked on every use. Emptied when full. Refresh tokens are not kept: a client
    /// sends one once per access token's lifetime, so keeping them would only cost.
    private let verified = Mutex<[String: IssuedTokenClaims]>([:])
    static let verifiedCapacity = 4096

    /// Loads (or creates and stores) each app's signing key.
    init(apps: [AppConfiguration], store: any SigningKeyStore, clock: ServerClock) async throws {
        self.clock = clock
        var published: [String: EJSON] = [:]
        var hmacKeys: [String: SymmetricKey] = [:]
        for app in apps {
            let kid = JWKIdentifier(string: app.id)
            if app.tokenSigningAlgorithm == "ES256" {
                let pem = try await store.signingKey(app: app.id, algorithm: "ES256") {
                    Array(ES256PrivateKey().pemRepresentation.utf8)
                }
                let key = try ES256PrivateKey(pem: String(decoding: pem, as: UTF8.self))
                await keys.add(ecdsa: key, kid: kid)
                if let p = key.parameters {
                    published[app.id] = [
                        "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": .string(app.id),
                        "x": .string(p.x), "y": .string(p.y),
                    ]
                }
            } else {
                let secret = try await store.signingKey(app: app.id, algorithm: "HS256") { Secrets.randomBytes(32) }
                hmacKeys[app.id] = SymmetricKey(data: secret)
            }
        }
        publicKeys = published
        hs256 = HS256Tokens(keys: hmacKeys)
    }

    /// The JWKS document of an app: its ES256 public key, or no key for HS256 apps.
    func jwks(app: String) -> EJSON {
        ["keys": .array(publicKeys[app].map { [$0] } ?? [])]
    }

    /// Signs an access token; `extra` claims (an app's `accessTokenClaims` hook, checked
    /// there) come after the token's own and never replace one.
    func sign(_ claims: AccessTokenClaims, extra: EJSONDocument = [:]) async throws -> String {
        var payload: EJSONDocument = [
            "exp": .int64(claims.exp), "iat": .int64(claims.iat), "sub": .string(claims.sub), "typ": .string(claims.typ),
            "iss": .string(claims.iss), "baas_device_id": .string(claims.baas_device_id),
            "baas_domain_id": .string(claims.baas_domain_id),
        ]
        if let data = claims.user_data { payload["user_data"] = .document(data) }
        if let time = claims.auth_time { payload["auth_time"] = .int64(time) }
        if let methods = claims.amr { payload["amr"] = .array(methods.map(EJSON.string)) }
        for (key, value) in extra where payload[key] == nil { payload[key] = value }
        if let token = hs256.sign(payload, kid: claims.baas_domain_id) { return token }
        return try await keys.sign(DocumentPayload(document: payload), kid: JWKIdentifier(string: claims.baas_domain_id))
    }

    func sign(_ claims: RefreshTokenClaims) async throws -> String {
        let kid = claims.baas_domain_id ?? ""
        var payload: EJSONDocument = [
            "exp": .int64(claims.exp), "iat": .int64(claims.iat), "sub": .string(claims.sub), "typ": .string(claims.typ),
            "baas_id": .string(claims.baas_id),
            "baas_identity": [
                "id": .string(claims.baas_identity.id), "provider_type": .string(claims.baas_identity.provider_type),
                "provider_id": .string(claims.baas_identity.provider_id),
            ],
            "baas_device_id": .string(claims.baas_device_id),
        ]
        if let app = claims.baas_domain_id { payload["baas_domain_id"] = .string(app) }
        if let methods = claims.amr { payload["amr"] = .array(methods.map(EJSON.string)) }
        if let token = hs256.sign(payload, kid: kid) { return token }
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Signs `claims` as they are with app `app`'s key (HS256 or ES256, `kid` the app id): the
    /// tokens of another API the app answers (Firebase's ID tokens).
    func sign(document claims: EJSONDocument, app: String) async throws -> String {
        if let token = hs256.sign(claims, kid: app) { return token }
        return try await keys.sign(DocumentPayload(document: claims), kid: JWKIdentifier(string: app))
    }

    /// The payload of a token signed with app `app`'s key (its `kid` the app id), whatever its
    /// claims; nil when it is not one. Its claims are the caller's to check.
    func verifiedPayload(_ token: String, app: String) async -> EJSONDocument? {
        if let payload = hs256.payload(token, kid: app) { return payload }
        guard publicKeys[app] != nil, JWTParts(token)?.header["kid"]?.stringValue == app else { return nil }
        return try? await keys.verify(token, as: DocumentPayload.self).document
    }

    /// Which token a route needs.
    enum Kind { case access, refresh }

    /// Verifies signature, type and expiry; the error is what the client should see.
    func verify(_ token: String, as kind: Kind) async throws(ServiceError) -> IssuedTokenClaims {
        let malformed = ServiceError(.invalidSession, "invalid session: token is malformed or not signed by this server")
        var claims: IssuedTokenClaims
        if kind == .access, let known = verified.withLock({ $0[token] }) {
            claims = known
        } else {
            switch hs256.verify(token) {
            case .verified(let c):
                claims = c
            case .refused:
                throw malformed
            case .notHandled:
                do {
                    claims = try await keys.verify(token, as: IssuedTokenClaims.self)
                } catch {
                    throw malformed
                }
            }
            if kind == .access {
                verified.withLock { cache in
                    if cache.count >= Self.verifiedCapacity { cache.removeAll(keepingCapacity: true) }
                    cache[token] = claims
                }
            }
        }
        switch kind {
        case .access where claims.typ != "access":
            throw ServiceError(.invalidSession, "invalid access token: incorrect token type")
        case .refresh where claims.typ != "refresh":
            throw ServiceError(.invalidSession, "invalid refresh token: incorrect token type")
        default: break
        }
        guard claims.session != nil, claims.baas_domain_id != nil else {
            throw ServiceError(.invalidSession, "invalid session: token is missing its session")
        }
        if claims.exp <= clock.now {
            throw ServiceError(
                .invalidSession,
                kind == .access
                    ? "invalid session: access token expired"
                    : "invalid session: refresh token expired")
        }
        return claims
    }
}
