// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import Hummingbird
import JWTKit
import NIOCore
import Synchronization
import _CryptoExtras
import Testing

/// custom-token with keys from a JWKS URL. The identity provider that would publish them is
/// remote and cannot run here, so a small HTTP server on a loopback port stands in for it.
@Suite(.timeLimit(.minutes(5))) struct JWKSTests {
    /// Serves `document` at `/jwks.json` while `body` runs; counts the fetches.
    static func withJWKSServer(_ document: EJSON, _ body: @Sendable (_ url: String, _ fetches: @escaping @Sendable () -> Int) async throws -> Void)
        async throws
    {
        let fetches = Atomic<Int>(0)
        let router = Router()
        router.get("jwks.json") { _, _ in
            fetches.add(1, ordering: .relaxed)
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: document.encoded(.relaxed))))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let provider = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await provider.runService() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await body("http://127.0.0.1:\(port)/jwks.json") { fetches.load(ordering: .relaxed) }
            group.cancelAll()
        }
    }

    @Test func customTokenWithKeysFromAJWKSURL() async throws {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let signer = try JWTKit.Insecure.RSA.PrivateKey(backing: backing)
        let stranger = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let primitives = try backing.publicKey.getKeyPrimitives()
        let jwks: EJSON = [
            "keys": [
                [
                    "kty": "RSA", "alg": "RS256", "use": "sig", "kid": "idp-1",
                    "n": .string(Base64.encode(Array(primitives.modulus), urlSafe: true)),
                    "e": .string(Base64.encode(Array(primitives.publicExponent), urlSafe: true)),
                ]
            ]
        ]
        func token(_ key: JWTKit.Insecure.RSA.PrivateKey, sub: String) async throws -> String {
            let keys = JWTKeyCollection()
            await keys.add(rsa: key, digestAlgorithm: .sha256, kid: "idp-1")
            return try await keys.sign(
                CustomClaims(
                    sub: .init(value: sub), exp: .init(value: Date().addingTimeInterval(600)),
                    aud: .init(value: ["any"]), profile: nil), kid: "idp-1")
        }
        let ada = try await token(signer, sub: "ada"), grace = try await token(signer, sub: "grace")
        let forged = try await token(stranger, sub: "ada")
        try await Self.withJWKSServer(jwks) { url, fetches in
            var app = AppConfiguration(id: "local")
            var custom = AppConfiguration.CustomToken()
            custom.signingAlgorithm = "RS256"
            custom.jwkURI = url
            // A bound for a failing test, not a wait: the suite's first burst once held the
            // fetch from this loopback server past the default 5 s.
            custom.timeoutSeconds = 60
            app.providers.customToken = custom
            try await TestServer.run(TestServer.configuration(apps: [app])) { (c: Client) async throws in
                let first = try await c.login("custom-token", ["provider": "custom-token", "token": .string(ada)])
                #expect(first.status == 200)
                let profile = try await c.profile(try #require(first["access_token"]))
                #expect(profile.body["identities"]?.arrayValue?.first?["id"] == "ada")
                #expect(try await c.login("custom-token", ["provider": "custom-token", "token": .string(grace)]).status == 200)
                let bad = try await c.login("custom-token", ["provider": "custom-token", "token": .string(forged)])
                #expect(bad.status == 401 && bad.code == "AuthError")
                // The keys were fetched once and cached.
                #expect(fetches() == 1)
            }
        }
    }
}
