// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Hummingbird
import Testing

@Suite(.timeLimit(.minutes(5))) struct APIKeyTests {
    @Test func lifecycle() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("k@example.com")
            let owner = try await c.emailLogin("k@example.com", "password1")
            let rt = owner["refresh_token"]!
            let created = try await c.call(.post, Routes.apiKeys, json: ["name": "ci"], token: rt)
            #expect(created.status == 201 && created["name"] == "ci" && created.body["disabled"] == false)
            let (id, key) = (created["_id"]!, created["key"]!)
            #expect(ObjectId(hex: id) != nil)  // a bare hex string, not {"$oid": ..}
            _ = try await c.call(.post, Routes.apiKeys, json: ["name": "second"], token: rt)
            let list = try await c.call(.get, Routes.apiKeys, token: rt).body.arrayValue ?? []
            #expect(list.map { $0["name"] } == ["ci", "second"])
            #expect(list.allSatisfy { $0["key"] == nil })
            #expect(try await c.call(.get, Routes.apiKey(id), token: rt)["name"] == "ci")
            let same = try await c.call(.post, Routes.apiKeys, json: ["name": "ci"], token: rt)
            #expect(same.status == 409 && same.code == "APIKeyAlreadyExists")

            // Logging in with the key logs in as its owner.
            let viaKey = try await c.login("api-key", ["provider": "api-key", "key": .string(key)])
            #expect(viaKey.status == 200 && viaKey["user_id"] == owner["user_id"])

            for _ in 0..<2 { #expect(try await c.call(.put, Routes.apiKey(id) + "/disable", token: rt).status == 200) }
            #expect(try await c.call(.get, Routes.apiKey(id), token: rt).body["disabled"] == true)
            let disabled = try await c.login("api-key", ["provider": "api-key", "key": .string(key)])
            #expect(disabled.status == 401 && disabled.code == "AuthError" && disabled.message == "invalid API key")
            #expect(try await c.call(.put, Routes.apiKey(id) + "/enable", token: rt).status == 200)
            #expect(try await c.login("api-key", ["provider": "api-key", "key": .string(key)]).status == 200)

            #expect(try await c.call(.delete, Routes.apiKey(id), token: rt).status == 200)
            #expect(try await c.login("api-key", ["provider": "api-key", "key": .string(key)]).message == "invalid API key")
            #expect(try await c.call(.get, Routes.apiKey(id), token: rt).code == "APIKeyNotFound")
        }
    }

    @Test func anotherUsersKeyIsNotFound() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("k1@example.com")
            try await c.registerConfirmed("k2@example.com")
            let a = try await c.emailLogin("k1@example.com", "password1")["refresh_token"]!
            let b = try await c.emailLogin("k2@example.com", "password1")["refresh_token"]!
            let id = try await c.call(.post, Routes.apiKeys, json: ["name": "mine"], token: a)["_id"]!
            for (method, suffix) in [(HTTPRequest.Method.get, ""), (.delete, ""), (.put, "/disable")] {
                let r = try await c.call(method, Routes.apiKey(id) + suffix, token: b)
                #expect(r.status == 404 && r.code == "APIKeyNotFound")
            }
            #expect(try await c.call(.get, Routes.apiKey(id), token: a).status == 200)
        }
    }

    @Test func limitsAndWhoMayCreate() async throws {
        try await TestServer.run { c in
            let anon = try await c.anonymous()
            #expect(try await c.call(.post, Routes.apiKeys, json: ["name": "x"], token: anon["refresh_token"]!).status == 400)
            #expect(try await c.call(.post, Routes.apiKeys, json: ["name": "x"], token: anon["access_token"]!).status == 401)
            try await c.registerConfirmed("many@example.com")
            let rt = try await c.emailLogin("many@example.com", "password1")["refresh_token"]!
            for i in 0..<20 { #expect(try await c.call(.post, Routes.apiKeys, json: ["name": .string("k\(i)")], token: rt).status == 201) }
            let over = try await c.call(.post, Routes.apiKeys, json: ["name": "k20"], token: rt)
            #expect(over.status == 400 && over.message?.contains("20") == true)
        }
    }

    /// An API key logs in with no second factor, so for a user with one, making a key (or
    /// enabling a disabled one) takes a recent login that used it: not a session from before
    /// the enrolment, nor a stolen password-only one, nor one older than 10 minutes.
    @Test func aUserWithASecondFactorMakesKeysOnlyFromALoginThatUsedIt() async throws {
        try await TestServer.run(TestServer.configuration(apps: [TOTPHarness.app()])) { c in
            try await c.registerConfirmed("m@example.com")
            let before = try await c.emailLogin("m@example.com", "password1")
            let stale = try #require(before["refresh_token"])
            let early = try await c.call(.post, Routes.apiKeys, json: ["name": "early"], token: stale)
            #expect(early.status == 201, "no second factor yet: any session makes keys")
            #expect(try await c.call(.put, Routes.apiKey(try #require(early["_id"])) + "/disable", token: stale).status == 200)
            let (totp, _) = try await TOTPHarness.enrol(c, access: try #require(before["access_token"]))

            let refused = try await c.call(.post, Routes.apiKeys, json: ["name": "ci"], token: stale)
            #expect(refused.status == 401 && refused.code == "RequiresRecentLogin", "\(refused.body)")
            let enable = try await c.call(.put, Routes.apiKey(try #require(early["_id"])) + "/enable", token: stale)
            #expect(enable.code == "RequiresRecentLogin", "\(enable.body)")
            #expect(try await c.call(.get, Routes.apiKeys, token: stale).status == 200, "listing stays open")

            let now = try await TOTPHarness.now(c, advancing: 30)
            let done = try await TOTPHarness.complete(c, try await TOTPHarness.mfaToken(c, "m@example.com"), totp.code(at: now))
            let fresh = try #require(done["refresh_token"])
            let made = try await c.call(.post, Routes.apiKeys, json: ["name": "ci"], token: fresh)
            #expect(made.status == 201, "\(made.body)")
            #expect(try await c.call(.put, Routes.apiKey(try #require(early["_id"])) + "/enable", token: fresh).status == 200)
            try await TOTPHarness.now(c, advancing: 601)
            #expect(try await c.call(.post, Routes.apiKeys, json: ["name": "late"], token: fresh).code == "RequiresRecentLogin")
        }
    }
}
