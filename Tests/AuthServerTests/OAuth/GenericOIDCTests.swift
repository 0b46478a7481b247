// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Crypto
import Foundation
import Testing

/// `oauth2-<name>` against a real third-party OpenID Connect provider (oidc-provider-mock):
/// discovery, the authorization code flow with the server's PKCE and nonce, ID tokens checked
/// against its JWKS, userinfo; and the tokens that must be refused.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GenericOIDCTests {
    static let clientId = "authsh-test-client"

    /// A live dev server whose app `local` has `oauth2-mock` on `mock`'s issuer.
    static func run(_ mock: OIDCMock, _ body: @escaping @Sendable (Client) async throws -> Void) async throws {
        var app = AppConfiguration(id: "local")
        var provider = OAuthProviderConfiguration(type: "oauth2-mock", clientId: clientId, clientSecret: ConfigSecret("s3cret"))
        provider.issuer = mock.issuer
        provider.returnProviderTokens = true
        app.providers.oauth = [provider.type: provider]
        try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { c in try await body(c) }
    }

    @Test func theLoopbackFlowThroughDiscoveryCodeAndIDToken() async throws {
        let mock = try await OIDCMock()
        try await mock.setClaims("alice", ["email": "alice@example.com", "email_verified": true, "name": "Alice A"])
        try await Self.run(mock) { c in
            let port = try #require(c.client.port)
            let (verifier, challenge) = DevIdP.pkce()
            let start = try await Web.send(
                "GET",
                "http://127.0.0.1:\(port)" + Routes.login("local", provider: "oauth2-mock") + "?"
                    + FormEncoding.encode([
                        ("redirect", "http://127.0.0.1:9/cb"), ("state", "s1"),
                        ("code_challenge", challenge), ("code_challenge_method", "S256"),
                    ]))
            let authorize = try #require(start.location, "\(start.status) \(start.text)")
            // Discovery gave the authorize endpoint; the server sent its own PKCE and a nonce.
            #expect(authorize.hasPrefix(mock.issuer + "/oauth2/authorize?"))
            #expect(authorize.contains("nonce=") && authorize.contains("code_challenge_method=S256"))
            let callback = try await mock.approve(authorize, sub: "alice")
            let back = try await Web.send("GET", callback)
            let loopback = try #require(back.location, "\(back.status) \(back.text)")
            let fields = try #require(FormEncoding.decode(loopback.split(separator: "?", maxSplits: 1)[1]))
            let code = try #require(FormEncoding.value("code", in: fields), "\(loopback)")
            let login = try await c.login("oauth2-mock", ["loginCode": .string(code), "codeVerifier": .string(verifier)])
            #expect(login.status == 200, "\(login.body)")
            let profile = try await c.profile(try #require(login["access_token"]))
            #expect(profile.body["identities"]?.arrayValue?.first?["id"] == "alice")
            #expect(profile.body["data"]?["email"] == "alice@example.com" && profile.body["data"]?["name"] == "Alice A")
        }
    }

    @Test func idTokenAuthCodeAndAccessTokenLogIn() async throws {
        let mock = try await OIDCMock()
        try await mock.setClaims("bob", ["email": "bob@example.com", "email_verified": false])
        try await Self.run(mock) { c in
            let tokens = try await mock.tokens(sub: "bob", clientId: Self.clientId, nonce: "n-1")
            let idToken = try #require(tokens["id_token"]?.stringValue)
            let byID = try await c.login("oauth2-mock", ["id_token": .string(idToken), "nonce": "n-1"])
            #expect(byID.status == 200, "\(byID.body)")
            let profile = try await c.profile(try #require(byID["access_token"]))
            #expect(profile.body["data"]?["email"] == nil, "an unverified email stays out of the profile")

            let byCode = try await c.login(
                "oauth2-mock",
                [
                    "authCode": .string(try await mock.code(sub: "bob", clientId: Self.clientId)),
                    "redirectUri": "http://127.0.0.1:9/cb",
                ])
            #expect(byCode["user_id"] == byID["user_id"], "\(byCode.body)")
            let access = try #require(tokens["access_token"]?.stringValue)
            let byAccess = try await c.login("oauth2-mock", ["accessToken": .string(access)])
            #expect(byAccess["user_id"] == byID["user_id"], "userinfo: \(byAccess.body)")
            #expect(byAccess["provider_access_token"] == access)
        }
    }

    @Test func tokensThatMustBeRefused() async throws {
        let mock = try await OIDCMock()
        let other = try await OIDCMock()
        try await Self.run(mock) { c in
            func refused(_ token: String, nonce: String? = nil) async throws -> String? {
                var body: EJSONDocument = ["id_token": .string(token)]
                if let nonce { body["nonce"] = .string(nonce) }
                let r = try await c.login("oauth2-mock", .document(body))
                #expect(r.status == 401, "\(r.body)")
                return r.message
            }
            let forOther = try #require(try await mock.tokens(sub: "carl", clientId: "another-client")["id_token"]?.stringValue)
            #expect(try await refused(forOther) == "invalid ID token: wrong audience")
            let fromOther = try #require(try await other.tokens(sub: "carl", clientId: Self.clientId)["id_token"]?.stringValue)
            #expect(try await refused(fromOther) == "invalid ID token: bad signature")
            let withNonce = try #require(try await mock.tokens(sub: "carl", clientId: Self.clientId, nonce: "right")["id_token"]?.stringValue)
            #expect(try await refused(withNonce, nonce: "wrong") == "invalid ID token: wrong nonce")
            _ = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 7200])
            #expect(try await refused(withNonce, nonce: "right") == "invalid ID token: expired")
            // A code the IdP refuses (made up) is a 401 that says so.
            let code = try await c.login("oauth2-mock", ["authCode": "not-a-code", "redirectUri": "http://127.0.0.1:9/cb"])
            #expect(code.status == 401 && code.message?.hasPrefix("oauth2-mock refused the authorization code") == true, "\(code.body)")
        }
    }
}
