// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

@Suite(.timeLimit(.minutes(5))) struct LinkingTests {
    @Test func linkAnonymousToEmailThenLogInThroughIt() async throws {
        try await TestServer.run { c in
            let anon = try await c.anonymous()
            try await c.registerConfirmed("link@example.com")
            let linked = try await c.emailLogin("link@example.com", "password1", link: anon["access_token"]!)
            #expect(linked.status == 200 && linked["user_id"] == anon["user_id"] && linked["access_token"] != nil)
            let profile = try await c.profile(anon["access_token"]!)
            let types = profile.body["identities"]?.arrayValue?.compactMap { $0["provider_type"]?.stringValue }
            #expect(types == ["anon-user", "local-userpass"])  // link order
            #expect(profile.body["data"]?["email"] == "link@example.com")
            // The linked identity now logs in as that user.
            #expect(try await c.emailLogin("link@example.com", "password1")["user_id"] == anon["user_id"])
            // Re-linking the same identity is a no-op success.
            #expect(try await c.emailLogin("link@example.com", "password1", link: anon["access_token"]!).status == 200)
        }
    }

    @Test func linkRules() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("one@example.com")
            try await c.registerConfirmed("two@example.com")
            let one = try await c.emailLogin("one@example.com", "password1")["access_token"]!
            let two = try await c.emailLogin("two@example.com", "password1")["access_token"]!
            let taken = try await c.emailLogin("two@example.com", "password1", link: one)
            #expect(
                taken.status == 401 && taken.code == "InvalidSession"
                    && taken.message == "a user already exists with the specified provider")
            let anon = try await c.login("anon-user", ["provider": "anon-user"], link: one)
            #expect(anon.status == 500 && anon.message == "linking an anonymous identity is not allowed")
            try await c.registerConfirmed("three@example.com")
            let second = try await c.emailLogin("three@example.com", "password1", link: two)
            #expect(
                second.status == 500
                    && second.message == "linking a local-userpass identity is not allowed when one is already linked")
            let wrong = try await c.emailLogin("three@example.com", "wrong-password", link: two)
            #expect(wrong.code == "InvalidPassword")
            let noToken = try await c.call(.post, Routes.login("local", provider: "anon-user") + "?link=true", json: ["provider": "anon-user"])
            #expect(noToken.status == 401 && noToken.code == "MissingAuthReq")
        }
    }
}
