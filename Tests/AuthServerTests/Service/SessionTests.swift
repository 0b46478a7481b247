// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

@Suite(.timeLimit(.minutes(5))) struct SessionTests {
    @Test func anonymousLoginsAreNewUsers() async throws {
        try await TestServer.run { c in
            let a = try await c.anonymous(), b = try await c.anonymous()
            #expect(a.status == 200 && b.status == 200 && a["user_id"] != b["user_id"])
            #expect(ObjectId(hex: a["user_id"]!) != nil && ObjectId(hex: a["device_id"]!) != nil)
        }
    }

    @Test func tokensCarryTheClaimsOfTheSpec() async throws {
        try await TestServer.run { c in
            let login = try await c.login(
                "anon-user",
                [
                    "provider": "anon-user",
                    "options": ["device": ["deviceId": "5f1b2c3d4e5f60718293a4b5", "platform": "linux"]],
                ])
            let access = try Self.claims(login["access_token"]!)
            let refresh = try Self.claims(login["refresh_token"]!)
            #expect(access["typ"] == "access" && refresh["typ"] == "refresh")
            #expect(access["sub"] == login.body["user_id"] && access["baas_domain_id"] == "local")
            #expect(access["baas_device_id"] == "5f1b2c3d4e5f60718293a4b5" && login["device_id"] == "5f1b2c3d4e5f60718293a4b5")
            #expect(access["iss"] == refresh["baas_id"])
            #expect(refresh["baas_identity"]?["provider_type"] == "anon-user")
            // Integer exp and iat (plain JSON integers, which read as int64), 30 minutes apart.
            guard case .int64(let exp)? = access["exp"], case .int64(let iat)? = access["iat"] else {
                Issue.record("exp/iat are not integers: \(access)")
                return
            }
            #expect(exp - iat == 1800)
        }
    }

    @Test func refreshLogoutAndTokenTypes() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("s@example.com")
            let login = try await c.emailLogin("s@example.com", "password1")
            let (at, rt) = (login["access_token"]!, login["refresh_token"]!)
            let refreshed = try await c.refresh(rt)
            #expect(refreshed.status == 201 && refreshed["access_token"] != nil)
            #expect(try await c.profile(refreshed["access_token"]!).status == 200)
            let wrongType = try await c.refresh(at)
            #expect(wrongType.status == 401 && wrongType.message == "invalid refresh token: incorrect token type")
            #expect(try await c.profile(rt).status == 401)
            #expect(try await c.call(.delete, Routes.session, token: rt).status == 200)
            let revoked = try await c.refresh(rt)
            #expect(
                revoked.status == 401 && revoked.code == "InvalidSession"
                    && revoked.message == "invalid session: failed to find refresh token")
            // Its access tokens end with it.
            let ended = try await c.profile(at)
            #expect(ended.status == 401 && ended.code == "InvalidSession" && ended.message == "invalid session: the session has ended")
        }
    }

    @Test func expiredAccessTokenIsRefreshedWithTheDevClock() async throws {
        try await TestServer.run { c in
            let login = try await c.anonymous()
            #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 1801]).status == 200)
            let expired = try await c.profile(login["access_token"]!)
            #expect(expired.status == 401 && expired.code == "InvalidSession")
            let fresh = try await c.refresh(login["refresh_token"]!)
            #expect(try await c.profile(fresh["access_token"]!).status == 200)
        }
    }

    @Test func refreshTokensOfEmailUsersExpire() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("x@example.com")
            let login = try await c.emailLogin("x@example.com", "password1")
            let anon = try await c.anonymous()
            #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 5_184_001]).status == 200)
            #expect(try await c.refresh(login["refresh_token"]!).status == 401)
            // Anonymous refresh tokens do not expire.
            #expect(try await c.refresh(anon["refresh_token"]!).status == 201)
        }
    }

    @Test func deleteUser() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("del@example.com")
            let login = try await c.emailLogin("del@example.com", "password1")
            #expect(try await c.call(.delete, Routes.deleteUser, token: login["access_token"]!).status == 200)
            #expect(try await c.profile(login["access_token"]!).status == 401)
            #expect(try await c.refresh(login["refresh_token"]!).status == 401)
            #expect(try await c.emailLogin("del@example.com", "password1").code == "InvalidPassword")
            // The email is free again.
            #expect(try await c.userpass("register", ["email": "del@example.com", "password": "password1"]).status == 201)
        }
    }

    @Test func locationAndUnknownApp() async throws {
        try await TestServer.run { c in
            let loc = try await c.call(.get, Routes.location("local"))
            #expect(loc.status == 200 && loc["deployment_model"] != nil && loc["hostname"]?.hasPrefix("http://") == true)
            #expect(loc["ws_hostname"]?.hasPrefix("ws://") == true)
            let unknown = try await c.call(.get, Routes.location("nope"))
            #expect(unknown.status == 404 && unknown.message?.contains("nope") == true)
            let route = try await c.call(.get, "/nothing/here")
            #expect(route.status == 404 && route.code == "NotFound")
        }
    }

    /// The payload of a JWT, parsed.
    static func claims(_ jwt: String) throws -> EJSON {
        let parts = jwt.split(separator: ".")
        #expect(parts.count == 3 && !parts[2].isEmpty)
        return try EJSON(parsing: try #require(Base64.decode(String(parts[1]))))
    }
}
