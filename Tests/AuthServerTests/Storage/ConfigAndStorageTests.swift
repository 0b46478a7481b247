// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import JWTKit
import _CryptoExtras
import Testing

@Suite(.timeLimit(.minutes(5))) struct ConfigAndStorageTests {
    @Test(arguments: [
        (#"{"apps":[{"id":"a","providers":{"local-userpass":{"autoConfrim":true}}}]}"#, "apps[0].providers.local-userpass.autoConfrim: unknown key"),
        (#"{"apps":[{"id":"a","accessTokenLifetimeSeconds":"1800"}]}"#, "apps[0].accessTokenLifetimeSeconds: expected an integer, got string"),
        (#"{"apps":[{"id":"a"},{"id":"a"}]}"#, "apps[1].id: app id \"a\" is used twice"),
        (#"{"apps":[{"id":"a","providers":{"custom-token":{"signingKeys":["short"]}}}]}"#, "an HS256 key must be at least 32 bytes"),
        (
            #"{"apps":[{"id":"a","providers":{"custom-token":{"signingAlgorithm":"RS256","signingKeys":["not a pem"]}}}]}"#,
            "not an RSA public key in PEM"
        ),
        (
            #"{"apps":[{"id":"a","providers":{"custom-token":{"jwkURI":"https://idp.example.com/jwks","timeoutSeconds":0}}}]}"#,
            "apps[0].providers.custom-token.timeoutSeconds"
        ),
        (#"{"app":[]}"#, "apps: missing"),
        (#"{"apps": [}"#, "invalid JSON"),
    ])
    func configErrorsNameFileAndKey(json: String, expected: String) async throws {
        var c = TestServer.configuration()
        do {
            try c.loadConfig(Array(json.utf8), file: "authsh.json")
            _ = try await buildApplication(c)
            Issue.record("accepted: \(json)")
        } catch let error as ConfigError {
            #expect(error.description.hasPrefix("config authsh.json: "), "\(error)")
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func theSpecExampleConfigLoads() throws {
        var c = TestServer.configuration()
        try c.loadConfig(
            Array(
                #"""
                {"apps":[{"id":"myapp","accessTokenLifetimeSeconds":1800,"refreshTokenLifetimeSeconds":5184000,
                  "providers":{"anon-user":{"enabled":true},
                    "local-userpass":{"enabled":true,"autoConfirm":false,"emailConfirmationUrl":"https://example.com/confirm",
                      "confirmEmailSubject":"Confirm your account","resetPasswordUrl":"https://example.com/reset",
                      "resetPasswordSubject":"Reset your password"},
                    "api-key":{"enabled":true},
                    "custom-token":{"enabled":true,"signingAlgorithm":"HS256","signingKeys":["a-shared-secret-of-32-bytes-or-more"],
                      "jwkURI":null,"audience":null,"metadataFields":[{"required":false,"name":"name","field_name":"name"}]}},
                  "values":{"supportEmail":"help@example.com"}}]}
                """#.utf8), file: "x.json")
        #expect(c.apps.map(\.id) == ["myapp"])
        #expect(c.apps[0].providers.customToken?.metadataFields.first?.fieldName == "name")
        #expect(c.apps[0].values["supportEmail"] == "help@example.com")
    }

    @Test func usersSessionsAndKeysSurviveARestart() async throws {
        let dir = Scratch.path("test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = TestServer.configuration(database: .directory(dir))
        let saved = Saved()
        try await TestServer.run(config) { c in
            try await c.registerConfirmed("persist@example.com")
            let login = try await c.emailLogin("persist@example.com", "password1")
            await saved.set(login["refresh_token"]!, login["user_id"]!)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: dir)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        try await TestServer.run(config) { c in
            let (rt, user) = await saved.get()
            // The signing key was kept: the old refresh token still verifies.
            let refreshed = try await c.refresh(rt)
            #expect(refreshed.status == 201)
            #expect(try await c.profile(refreshed["access_token"]!)["user_id"] == user)
            #expect(try await c.emailLogin("persist@example.com", "password1")["user_id"] == user)
        }
    }

    @Test func customTokenLogin() async throws {
        let secret = "a-shared-secret-of-32-bytes-or-more"
        var app = AppConfiguration(id: "local")
        var ct = AppConfiguration.CustomToken()
        ct.signingKeys = [secret]
        ct.audience = ["my-audience"]
        ct.metadataFields = [
            .init(required: true, name: "profile.name", fieldName: "name"),
            .init(required: false, name: "email", fieldName: "email"),
        ]
        app.providers.customToken = ct
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        let wrongKeys = JWTKeyCollection()
        await wrongKeys.add(hmac: HMACKey(from: String(repeating: "z", count: 32)), digestAlgorithm: .sha256)
        func token(
            _ keys: JWTKeyCollection, exp: Date = Date().addingTimeInterval(600), aud: String = "my-audience",
            name: String? = "Dee"
        ) async throws -> String {
            try await keys.sign(
                CustomClaims(
                    sub: "ext-42", exp: .init(value: exp), aud: .init(value: [aud]),
                    profile: name.map { ["name": $0] }))
        }
        let good = try await token(keys)
        let cases = [
            (try await token(wrongKeys), "signature"), (try await token(keys, exp: Date().addingTimeInterval(-5)), "expired"),
            (try await token(keys, aud: "other"), "audience"), (try await token(keys, name: nil), "profile.name"),
        ]
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let login = try await c.login("custom-token", ["provider": "custom-token", "token": .string(good)])
            #expect(login.status == 200)
            let profile = try await c.profile(login["access_token"]!)
            #expect(profile.body["identities"]?.arrayValue?.first?["id"] == "ext-42")
            #expect(profile.body["data"]?["name"] == "Dee")
            #expect(try await c.login("custom-token", ["provider": "custom-token", "token": .string(good)])["user_id"] == login["user_id"])
            for (bad, reason) in cases {
                let r = try await c.login("custom-token", ["provider": "custom-token", "token": .string(bad)])
                #expect(r.status == 401 && r.code == "AuthError" && r.message?.contains(reason) == true, "\(reason): \(r.body)")
            }
        }
    }

    @Test func customTokenWithRS256PublicKey() async throws {
        let privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let otherKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        var app = AppConfiguration(id: "local")
        var ct = AppConfiguration.CustomToken()
        ct.signingAlgorithm = "RS256"
        ct.signingKeys = [privateKey.publicKey.pemRepresentation]
        app.providers.customToken = ct
        func token(_ key: JWTKit.Insecure.RSA.PrivateKey) async throws -> String {
            let keys = JWTKeyCollection()
            await keys.add(rsa: key, digestAlgorithm: .sha256)
            return try await keys.sign(
                CustomClaims(
                    sub: "rsa-user", exp: .init(value: Date().addingTimeInterval(600)),
                    aud: .init(value: ["any"]), profile: nil))
        }
        let good = try await token(privateKey), forged = try await token(otherKey)
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let login = try await c.login("custom-token", ["provider": "custom-token", "token": .string(good)])
            #expect(login.status == 200)
            #expect(try await c.profile(login["access_token"]!).body["identities"]?.arrayValue?.first?["id"] == "rsa-user")
            let bad = try await c.login("custom-token", ["provider": "custom-token", "token": .string(forged)])
            #expect(bad.status == 401 && bad.code == "AuthError")
        }
    }

    @Test func es256AppsPublishTheirKey() async throws {
        var app = AppConfiguration(id: "local")
        app.tokenSigningAlgorithm = "ES256"
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let jwks = try await c.call(.get, Routes.app("local") + "/.well-known/jwks.json")
            let login = try await c.anonymous()
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: jwks.body.encodedString())
            let claims = try await keys.verify(login["access_token"]!, as: AccessTokenClaims.self)
            #expect(claims.sub == login["user_id"] && claims.typ == "access")
        }
    }

    @Test func liveOnALoopbackPort() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { (c: Client) async throws in
            #expect(try await c.anonymous().status == 200)
            #expect(try await c.call(.get, Routes.location("local")).status == 200)
        }
    }
}

struct CustomClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var aud: AudienceClaim
    var profile: [String: String]?
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

actor Saved {
    var values = ("", "")
    func set(_ a: String, _ b: String) { values = (a, b) }
    func get() -> (String, String) { values }
}
