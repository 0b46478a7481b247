// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Crypto
import Foundation
import TestSupport
import Testing
import _CryptoExtras

/// The `oauth2-*` providers end to end through HTTP against the dev identity provider (a
/// live server on a loopback port: the providers reach the IdP over real HTTP).
@Suite(.timeLimit(.minutes(5))) struct OAuthProviderTests {
    static func live(_ body: @escaping @Sendable (Client, DevIdP) async throws -> Void) async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in try await body(c, DevIdP(c: c)) }
    }

    @Test func githubAuthorizationCodeLogsInTheSameUserTwice() async throws {
        try await Self.live { c, idp in
            let code = try await idp.code("oauth2-github", email: "ada@example.com", name: "Ada Lovelace")
            let first = try await c.login("oauth2-github", ["authCode": .string(code), "redirectUri": "http://127.0.0.1:9/cb"])
            #expect(first.status == 200, "\(first.body)")
            let profile = try await c.profile(try #require(first["access_token"]))
            #expect(profile.body["identities"]?.arrayValue?.first?["provider_type"] == "oauth2-github")
            #expect(profile.body["data"]?["email"] == "ada@example.com")
            #expect(profile.body["data"]?["name"] == "Ada Lovelace")
            // returnProviderTokens (on for the dev app): the GitHub token calls GitHub's API.
            let githubToken = try #require(first["provider_access_token"])
            let user = try await c.call(.get, "/dev/idp/github/api/user", token: githubToken)
            #expect(user.body["name"] == "Ada Lovelace")

            // A code is used once.
            let again = try await c.login("oauth2-github", ["authCode": .string(code), "redirectUri": "http://127.0.0.1:9/cb"])
            #expect(again.status == 401 && again.message?.contains("refused the authorization code") == true, "\(again.body)")

            let second = try await c.login(
                "oauth2-github",
                [
                    "authCode": .string(try await idp.code("oauth2-github", email: "ada@example.com")),
                    "redirectUri": "http://127.0.0.1:9/cb",
                ])
            #expect(second["user_id"] == first["user_id"])
            let other = try await c.login(
                "oauth2-github",
                [
                    "authCode": .string(try await idp.code("oauth2-github", email: "bob@example.com")),
                    "redirectUri": "http://127.0.0.1:9/cb",
                ])
            #expect(other["user_id"] != nil && other["user_id"] != first["user_id"])
        }
    }

    @Test func githubAccessTokenMustBeIssuedToThisApp() async throws {
        try await Self.live { c, idp in
            // The app's own client obtains a token; the server asks GitHub whose it is.
            let github = try await idp.provider("oauth2-github")
            let code = try await idp.code("oauth2-github", email: "cy@example.com")
            let tokens = try await c.call(
                .post, "/dev/idp/github/login/oauth/access_token",
                json: [
                    "code": .string(code), "client_id": github["clientId"]!, "client_secret": github["clientSecret"]!,
                ])
            let token = try #require(tokens["access_token"])
            let ok = try await c.login("oauth2-github", ["accessToken": .string(token)])
            #expect(ok.status == 200, "\(ok.body)")
            let forged = try await c.login("oauth2-github", ["accessToken": "gho_0000000000000000000000000000000000000000"])
            #expect(forged.status == 401 && forged.message?.contains("not issued to this app") == true, "\(forged.body)")
        }
    }

    @Test func githubUnverifiedEmailStaysOutOfTheProfile() async throws {
        try await Self.live { c, idp in
            let code = try await idp.code("oauth2-github", email: "eve@example.com", verified: false)
            let reply = try await c.login("oauth2-github", ["authCode": .string(code), "redirectUri": "http://127.0.0.1:9/cb"])
            let profile = try await c.profile(try #require(reply["access_token"]))
            #expect(profile.body["data"]?["email"] == nil)
            #expect(profile.body["data"]?["name"] == "Ada")
        }
    }

    @Test func googleIDTokenAuthCodeAndAccessTokenProveOneIdentity() async throws {
        try await Self.live { c, idp in
            let byIDToken = try await c.login("oauth2-google", ["id_token": .string(try await idp.idToken(email: "gil@example.com"))])
            #expect(byIDToken.status == 200, "\(byIDToken.body)")
            let profile = try await c.profile(try #require(byIDToken["access_token"]))
            #expect(profile.body["data"]?["email"] == "gil@example.com")

            let byCode = try await c.login(
                "oauth2-google",
                [
                    "authCode": .string(try await idp.code("oauth2-google", email: "gil@example.com")),
                    "redirectUri": "http://127.0.0.1:9/cb",
                ])
            #expect(byCode["user_id"] == byIDToken["user_id"], "\(byCode.body)")
            #expect(byCode["provider_id_token"] != nil && byCode["provider_access_token"] != nil)

            let access = try #require(
                try await idp.oidcTokens(code: try await idp.code("oauth2-google", email: "gil@example.com"))["access_token"]?.stringValue)
            let byAccess = try await c.login("oauth2-google", ["accessToken": .string(access)])
            #expect(byAccess["user_id"] == byIDToken["user_id"], "\(byAccess.body)")
        }
    }

    @Test func pkceVerifierIsCheckedByTheIdP() async throws {
        try await Self.live { c, idp in
            let (verifier, challenge) = DevIdP.pkce()
            let code = try await idp.code("oauth2-github", email: "pk@example.com", challenge: challenge)
            let wrong = try await c.login(
                "oauth2-github",
                [
                    "authCode": .string(code), "redirectUri": "http://127.0.0.1:9/cb",
                    "codeVerifier": "not-the-verifier-not-the-verifier-000000000",
                ])
            #expect(wrong.status == 401, "\(wrong.body)")
            let code2 = try await idp.code("oauth2-github", email: "pk@example.com", challenge: challenge)
            let right = try await c.login(
                "oauth2-github",
                [
                    "authCode": .string(code2), "redirectUri": "http://127.0.0.1:9/cb",
                    "codeVerifier": .string(verifier),
                ])
            #expect(right.status == 200, "\(right.body)")
        }
    }

    @Test func expiredIDTokenIsRefused() async throws {
        try await Self.live { c, idp in
            let token = try await idp.idToken(email: "old@example.com")
            _ = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 7200])
            let reply = try await c.login("oauth2-google", ["id_token": .string(token)])
            #expect(reply.status == 401 && reply.message == "invalid ID token: expired", "\(reply.body)")
        }
    }

    @Test func forgedIDTokensAreRefused() async throws {
        try await Self.live { c, idp in
            let real = try await idp.idToken(email: "mal@example.com")
            let parts = real.split(separator: ".").map(String.init)
            let headerBytes = try #require(Base64.decode(parts[0]))
            let header = try EJSON(parsing: headerBytes)
            let kid = try #require(header["kid"]?.stringValue)
            func b64(_ v: EJSON) -> String { Base64.encode(v.encoded(.relaxed), urlSafe: true) }

            // alg none, with and without a signature part.
            let none = b64(["alg": "none", "kid": .string(kid)]) + "." + parts[1] + "."
            // HS256 with the issuer's public key (from its JWKS) as the HMAC secret.
            let jwks = try await c.call(.get, "/dev/idp/oidc/jwks")
            let key = try #require(jwks.body["keys"]?.arrayValue?.first)
            let n = try #require(key["n"]?.stringValue.flatMap { Base64.decode($0) })
            let e = try #require(key["e"]?.stringValue.flatMap { Base64.decode($0) })
            let pem = try _RSA.Signing.PublicKey(n: n, e: e).pemRepresentation
            let hsInput = b64(["alg": "HS256", "kid": .string(kid)]) + "." + parts[1]
            let mac = HMAC<SHA256>.authenticationCode(for: Array(hsInput.utf8), using: SymmetricKey(data: Array(pem.utf8)))
            let hs256 = hsInput + "." + Base64.encode(Array(mac), urlSafe: true)
            // RS256 by another key, naming the issuer's key id.
            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let rsInput = b64(["alg": "RS256", "kid": .string(kid)]) + "." + parts[1]
            let rsSig = try stranger.signature(for: Array(rsInput.utf8), padding: .insecurePKCS1v1_5)
            let otherKey = rsInput + "." + Base64.encode(Array(rsSig.rawRepresentation), urlSafe: true)
            // The real token with its payload changed (another subject).
            let payloadBytes = try #require(Base64.decode(parts[1]))
            var claims = try #require(try EJSON(parsing: payloadBytes).documentValue)
            claims["sub"] = "someone-else"
            let tampered = parts[0] + "." + b64(.document(claims)) + "." + parts[2]

            let cases: [(String, String)] = [
                (none, "signing algorithm none is not accepted"), (hs256, "signing algorithm HS256 is not accepted"),
                (otherKey, "bad signature"), (tampered, "bad signature"), ("garbage", "not a JWT"),
            ]
            for (token, why) in cases {
                let reply = try await c.login("oauth2-google", ["id_token": .string(token)])
                #expect(reply.status == 401 && reply.message?.hasPrefix("invalid ID token: \(why)") == true, "\(why): \(reply.body)")
            }
            // A nonce the client names must be the token's.
            let withNonce = try await idp.idToken(email: "mal@example.com", nonce: "n-1")
            let wrongNonce = try await c.login("oauth2-google", ["id_token": .string(withNonce), "nonce": "n-2"])
            #expect(wrongNonce.message == "invalid ID token: wrong nonce", "\(wrongNonce.body)")
            let rightNonce = try await c.login("oauth2-google", ["id_token": .string(withNonce), "nonce": "n-1"])
            #expect(rightNonce.status == 200)
        }
    }

    @Test func anUnreachableIdPIsA502WithinTheTimeout() async throws {
        // A port nothing listens on, and a listener that never answers.
        let silent = try RawHTTP.listen()
        defer { silent.close() }
        var app = AppConfiguration(id: "local")
        var closed = OAuthProviderConfiguration(type: "oauth2-closed", clientId: "c")
        closed.issuer = "http://127.0.0.1:1"
        // AsyncHTTPClient retries a refused connection until the deadline.
        closed.timeoutSeconds = 1
        var hangs = OAuthProviderConfiguration(type: "oauth2-hangs", clientId: "c")
        hangs.issuer = "http://127.0.0.1:\(silent.port)"
        hangs.timeoutSeconds = 1
        app.providers.oauth = [closed.type: closed, hangs.type: hangs]
        try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { c in
            for type in ["oauth2-closed", "oauth2-hangs"] {
                let start = ContinuousClock.now
                let reply = try await c.login(type, ["id_token": "a.b.c"])
                #expect(reply.status == 502 && reply.code == "IdentityProviderUnavailable", "\(type): \(reply.body)")
                // Bounded: without the timeout the silent IdP would hold the login for ever.
                // (30 s leaves room for a loaded machine; the timeout is 1 s.)
                #expect(start.duration(to: .now) < .seconds(30))
            }
        }
    }

    @Test func anIdPThatAnswersGarbageIsA502() async throws {
        try await JWKSTests.withJWKSServer(["not": "a key set"]) { url, _ in
            let base = String(url.dropLast("/jwks.json".count))
            var app = AppConfiguration(id: "local")
            // Discovery that is not a discovery document, a JWKS without keys, a token endpoint
            // that answers HTML (the test server's 404 for an unknown path).
            var noDiscovery = OAuthProviderConfiguration(type: "oauth2-nodiscovery", clientId: "c")
            noDiscovery.issuer = base
            var noKeys = OAuthProviderConfiguration(type: "oauth2-nokeys", clientId: "c")
            noKeys.issuer = base
            noKeys.authorizationEndpoint = base + "/authorize"
            noKeys.tokenEndpoint = base + "/nothing-here"
            noKeys.jwksURI = url
            app.providers.oauth = [noDiscovery.type: noDiscovery, noKeys.type: noKeys]
            try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { c in
                let header = Base64.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8), urlSafe: true)
                let token = header + ".e30.c2ln"
                for (type, body) in [
                    ("oauth2-nodiscovery", ["id_token": EJSON.string(token)]), ("oauth2-nokeys", ["id_token": .string(token)]),
                    ("oauth2-nokeys", ["authCode": "x", "redirectUri": "http://127.0.0.1:9/cb"]),
                ] as [(String, EJSONDocument)] {
                    let reply = try await c.login(type, .document(body))
                    #expect(reply.status == 502 || reply.status == 401, "\(type): \(reply.body)")
                    #expect(reply.code == "IdentityProviderUnavailable" || reply.message?.contains("refused") == true, "\(type): \(reply.body)")
                }
                let keys = try await c.login("oauth2-nokeys", ["id_token": .string(token)])
                #expect(keys.status == 502 && keys.message?.contains("JWKS") == true, "\(keys.body)")
            }
        }
    }

    @Test func configReadsSecretsFromTheEnvironmentAndFiles() async throws {
        setenv("AUTHSH_TEST_OAUTH_SECRET", "from-the-environment", 1)
        let file = Scratch.path("secret")
        try "from-a-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var config = ServerConfiguration()
        try config.loadConfig(
            Array(
                #"""
                {"apps":[{"id":"a","providers":{
                  "oauth2-github":{"clientId":"gh","clientSecret":{"env":"AUTHSH_TEST_OAUTH_SECRET"}},
                  "oauth2-acme":{"clientId":"acme","clientSecret":{"file":"\#(file)"},"issuer":"https://id.acme.test"}}}]}
                """#.utf8), file: "c.json")
        let providers = config.apps[0].providers.oauth
        #expect(providers["oauth2-github"]?.clientSecret?.value == "from-the-environment")
        #expect(providers["oauth2-acme"]?.clientSecret?.value == "from-a-file")
        // An issuer of its own: the other endpoints come from its discovery, not Google's or GitHub's.
        #expect(providers["oauth2-acme"]?.tokenEndpoint == nil && providers["oauth2-acme"]?.kind == .generic)
        #expect(providers["oauth2-github"]?.tokenEndpoint == "https://github.com/login/oauth/access_token")
        // The config as the dev API shows it names the variable, never the secret.
        let shown = config.apps[0].ejson.encodedString()
        #expect(shown.contains("AUTHSH_TEST_OAUTH_SECRET") && !shown.contains("from-the-environment") && !shown.contains("from-a-file"))

        let missing: [(String, String)] = [
            (
                #"{"oauth2-github":{"clientId":"gh","clientSecret":{"env":"AUTHSH_TEST_NOT_SET"}}}"#,
                "apps[0].providers.oauth2-github.clientSecret: environment variable AUTHSH_TEST_NOT_SET is not set"
            ),
            (
                #"{"oauth2-github":{"clientId":"gh","clientSecret":{"file":"/nonexistent/secret"}}}"#,
                "apps[0].providers.oauth2-github.clientSecret: file /nonexistent/secret cannot be read"
            ),
            (
                #"{"custom-token":{"signingKeys":[{"env":"AUTHSH_TEST_NOT_SET"}]}}"#,
                "apps[0].providers.custom-token.signingKeys[0]: environment variable AUTHSH_TEST_NOT_SET is not set"
            ),
            (#"{"oauth2-acme":{"clientId":"x"}}"#, "apps[0].providers.oauth2-acme.issuer: missing"),
            (
                #"{"oauth2-github":{"clientId":"gh","redirectURIs":["https://example.com/cb#frag"]}}"#,
                "apps[0].providers.oauth2-github.redirectURIs[0]"
            ),
            (#"{"oauth2-Bad":{"clientId":"gh"}}"#, "apps[0].providers.oauth2-Bad: a provider key is"),
        ]
        for (providers, expected) in missing {
            var c = ServerConfiguration()
            #expect(throws: ConfigError.self, "\(providers)") {
                try c.loadConfig(Array(#"{"apps":[{"id":"a","providers":"#.utf8) + Array(providers.utf8) + Array("}]}".utf8), file: "c.json")
            }
            do { try c.loadConfig(Array(#"{"apps":[{"id":"a","providers":"#.utf8) + Array(providers.utf8) + Array("}]}".utf8), file: "c.json") } catch
            { #expect(error.description.contains(expected), "\(error)") }
        }
    }
}

/// The issuer's JWKS: fetched once and kept; a token naming a key id the set lacks (the IdP
/// rotated its keys) fetches it again, but at most once a minute.
@Suite(.timeLimit(.minutes(5))) struct JWKSRefetchTests {
    @Test func anUnknownKidRefetchesAtMostOnceAMinute() async throws {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try backing.publicKey.getKeyPrimitives()
        let jwks: EJSON = [
            "keys": [
                [
                    "kty": "RSA", "use": "sig", "kid": "k1",
                    "n": .string(Base64.encode(Array(primitives.modulus), urlSafe: true)),
                    "e": .string(Base64.encode(Array(primitives.publicExponent), urlSafe: true)),
                ]
            ]
        ]
        @Sendable func token(kid: String) throws -> String {
            func b64(_ v: EJSON) -> String { Base64.encode(v.encoded(.relaxed), urlSafe: true) }
            let now = Int64(Date().timeIntervalSince1970)
            let input =
                b64(["alg": "RS256", "kid": .string(kid)]) + "."
                + b64([
                    "iss": "https://issuer.example", "aud": "the-client", "sub": "s-1", "exp": .int64(now + 600), "iat": .int64(now),
                ])
            let signature = try backing.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5)
            return input + "." + Base64.encode(Array(signature.rawRepresentation), urlSafe: true)
        }
        try await JWKSTests.withJWKSServer(jwks) { url, fetches in
            var app = AppConfiguration(id: "local")
            var p = OAuthProviderConfiguration(type: "oauth2-acme", clientId: "the-client")
            p.issuer = "https://issuer.example"
            p.authorizationEndpoint = "https://issuer.example/authorize"
            p.tokenEndpoint = "https://issuer.example/token"
            p.jwksURI = url
            app.providers.oauth = [p.type: p]
            try await TestServer.run(TestServer.configuration(apps: [app])) { (c: Client) async throws in
                for _ in 1...3 { #expect(try await c.login("oauth2-acme", ["id_token": .string(try token(kid: "k1"))]).status == 200) }
                #expect(fetches() == 1, "kept after the first fetch")
                for _ in 1...5 {
                    let unknown = try await c.login("oauth2-acme", ["id_token": .string(try token(kid: "rotated"))])
                    #expect(unknown.status == 401 && unknown.message == "invalid ID token: signed with a key the issuer does not publish")
                }
                #expect(fetches() == 1, "an unknown kid right after a fetch does not fetch again")
            }
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct AccessTokenCheckTests {
    /// Without the client secret the server cannot ask GitHub or Facebook whose token it is:
    /// the token is refused, never taken on trust (a token of another app must not log in).
    @Test(arguments: ["oauth2-github", "oauth2-facebook"])
    func anAccessTokenIsRefusedWhenItCannotBeChecked(type: String) async throws {
        var app = AppConfiguration(id: "local")
        app.providers.oauth = [type: OAuthProviderConfiguration(type: type, clientId: "no-secret")]
        try await TestServer.run(TestServer.configuration(apps: [app], dev: false)) { c in
            let reply = try await c.login(type, ["accessToken": "a-token-of-another-app"])
            #expect(reply.status == 401 && reply.message == "\(type) needs clientSecret to check access tokens", "\(reply.body)")
        }
    }
}
