// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import JWTKit
import _CryptoExtras
import Testing

/// ID tokens for several audiences (OIDC Core 3.1.3.7: `azp`), and key sets that cannot be
/// fetched: a failure is remembered for a short time, not fetched again by every login.
@Suite(.timeLimit(.minutes(5))) struct IdPKeyTests {
    struct IDClaims: JWTPayload {
        var iss: String
        var sub: String
        var aud: [String]
        var azp: String?
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// An app with one OpenID Connect provider whose issuer is the JWKS server's origin.
    static func app(provider type: String, clientId: String, jwks url: String) -> AppConfiguration {
        let base = String(url.dropLast("/jwks.json".count))
        var provider = OAuthProviderConfiguration(type: type, clientId: clientId)
        provider.issuer = base
        provider.authorizationEndpoint = base + "/authorize"
        provider.tokenEndpoint = base + "/token"
        provider.jwksURI = url
        var app = AppConfiguration(id: "local")
        app.providers.oauth = [type: provider]
        return app
    }

    @Test func aTokenForSeveralAudiencesMustNameThisClientAsItsAuthorizedParty() async throws {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try backing.publicKey.getKeyPrimitives()
        let jwks: EJSON = [
            "keys": [
                [
                    "kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
                    "n": .string(Base64.encode(Array(primitives.modulus), urlSafe: true)),
                    "e": .string(Base64.encode(Array(primitives.publicExponent), urlSafe: true)),
                ]
            ]
        ]
        let signer = JWTKeyCollection()
        await signer.add(rsa: try Insecure.RSA.PrivateKey(backing: backing), digestAlgorithm: .sha256, kid: "k1")
        try await JWKSTests.withJWKSServer(jwks) { url, _ in
            let base = String(url.dropLast("/jwks.json".count))
            let app = Self.app(provider: "oauth2-corp", clientId: "this-client", jwks: url)
            try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { (c: Client) async throws in
                func login(_ aud: [String], azp: String?, sub: String) async throws -> Reply {
                    let claims = IDClaims(iss: base, sub: sub, aud: aud, azp: azp, exp: Int(Date().timeIntervalSince1970) + 600)
                    let token = try await signer.sign(claims, kid: "k1")
                    return try await c.login("oauth2-corp", ["id_token": .string(token)])
                }
                for (aud, azp) in [(["this-client", "other"], nil), (["this-client", "other"], "other"), (["this-client"], "other")]
                    as [([String], String?)]
                {
                    let refused = try await login(aud, azp: azp, sub: "mallory")
                    #expect(refused.status == 401 && refused.message?.contains("azp") == true, "\(aud) \(azp ?? "-"): \(refused.body)")
                }
                #expect(try await login(["this-client", "other"], azp: "this-client", sub: "ada").status == 200)
                #expect(try await login(["this-client"], azp: nil, sub: "grace").status == 200)
            }
        }
    }

    @Test func aKeySetThatFailsIsNotFetchedAgainByEveryLogin() async throws {
        try await JWKSTests.withJWKSServer(["not": "a key set"]) { url, fetches in
            var app = Self.app(provider: "oauth2-down", clientId: "c", jwks: url)
            var custom = AppConfiguration.CustomToken()
            custom.signingAlgorithm = "RS256"
            custom.jwkURI = url
            app.providers.customToken = custom
            try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { (c: Client) async throws in
                let token = Base64.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8), urlSafe: true) + ".e30.c2ln"
                // A failure is remembered for 10 s: five logins fetch once, or (on a machine so
                // busy that they took longer) once more per 10 s they took; before, once each.
                func logins(_ provider: String, _ body: EJSON, status: Int) async throws -> (fetched: Int, allowed: Int) {
                    let before = fetches(), start = ContinuousClock.now
                    for _ in 1...5 { #expect(try await c.login(provider, body).status == status) }
                    let allowed = 1 + Int(start.duration(to: .now).components.seconds / 10)
                    return (fetches() - before, allowed)
                }
                let oidc = try await logins("oauth2-down", ["id_token": .string(token)], status: 502)
                #expect(oidc.fetched <= oidc.allowed && oidc.allowed < 5, "the ID token path fetched \(oidc.fetched) times")
                let custom = try await logins("custom-token", ["token": .string(token)], status: 401)
                #expect(custom.fetched <= custom.allowed && custom.allowed < 5, "the custom-token path fetched \(custom.fetched) times")
                // Once the failure is old (the server's clock), the custom-token keys are asked for again.
                let before = fetches()
                #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 11]).status == 200)
                #expect(try await c.login("custom-token", ["token": .string(token)]).status == 401)
                #expect(fetches() == before + 1)
            }
        }
    }
}
