// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto
import Foundation
import Synchronization
import _CryptoExtras

/// The dev identity provider's OpenID Connect issuer: its URL, the claims of an identity, RS256 ID tokens,
/// the JWKS, and the signing key behind them (made once per data directory).
extension DevIdentityProvider {
    // MARK: OpenID Connect

    /// The issuer URL of the OpenID Connect flavour, as its tokens and discovery name it.
    var issuer: String {
        get throws(ServiceError) { try origin.resolve(Flavor.oidc.path) }
    }

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
}
