// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// Unlink and change password (docs/protocol/identity-providers.md section 6) through HTTP.
@Suite(.timeLimit(.minutes(5))) struct AccountLifecycleTests {
    static let unlink = Routes.base + "/auth/unlink"

    @Test func unlinkRemovesOneIdentityButNeverTheLast() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("un@example.com")
            let anon = try await c.anonymous()
            let token = try #require(anon["access_token"])
            let linked = try await c.emailLogin("un@example.com", "password1", link: token)
            #expect(linked.status == 200, "\(linked.body)")
            let profile = try await c.profile(token)
            let identities = try #require(profile.body["identities"]?.arrayValue)
            #expect(identities.count == 2)
            let anonId = try #require(identities[0]["id"]?.stringValue)
            let userpassId = try #require(identities[1]["id"]?.stringValue)

            let unknown = try await c.call(.post, Self.unlink, json: ["provider_type": "oauth2-github", "id": "123"], token: token)
            #expect(unknown.status == 400 && unknown.code == "InvalidParameter", "\(unknown.body)")

            // Unlinking the email/password identity removes the account: the email logs in no more.
            let after = try await c.call(.post, Self.unlink, json: ["provider_type": "local-userpass", "id": .string(userpassId)], token: token)
            #expect(after.status == 200, "\(after.body)")
            #expect(after.body["identities"]?.arrayValue?.compactMap { $0["provider_type"]?.stringValue } == ["anon-user"])
            #expect(try await c.emailLogin("un@example.com", "password1").status == 401)
            // ... and the email can be registered again, by anyone.
            #expect(try await c.userpass("register", ["email": "un@example.com", "password": "password2"]).status == 201)

            let last = try await c.call(.post, Self.unlink, json: ["provider_type": "anon-user", "id": .string(anonId)], token: token)
            #expect(last.status == 400 && last.code == "CannotUnlinkLastIdentity", "\(last.body)")
            #expect(try await c.profile(token).status == 200, "the user keeps its last identity")
        }
    }

    @Test func changePasswordChecksTheOldOneAndEndsTheOtherSessions() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("cp@example.com", "old-password")
            let here = try await c.emailLogin("cp@example.com", "old-password")
            let elsewhere = try await c.emailLogin("cp@example.com", "old-password")
            let token = try #require(here["access_token"])
            let route = Routes.userpass("local", "change")

            let wrong = try await c.call(.post, route, json: ["password": "not-the-old", "newPassword": "new-password"], token: token)
            #expect(wrong.status == 401 && wrong.code == "InvalidPassword", "\(wrong.body)")
            let short = try await c.call(.post, route, json: ["password": "old-password", "newPassword": "x"], token: token)
            #expect(short.status == 400, "\(short.body)")
            let anonymous = try await c.call(.post, route, json: ["password": "old-password", "newPassword": "new-password"])
            #expect(anonymous.status == 401)

            let ok = try await c.call(.post, route, json: ["password": "old-password", "newPassword": "new-password"], token: token)
            #expect(ok.status == 200, "\(ok.body)")
            // The caller's session goes on; the other one ended, access and refresh token alike.
            #expect(try await c.profile(token).status == 200)
            #expect(try await c.refresh(try #require(here["refresh_token"])).status == 201)
            #expect(try await c.profile(try #require(elsewhere["access_token"])).status == 401)
            #expect(try await c.refresh(try #require(elsewhere["refresh_token"])).status == 401)
            #expect(try await c.emailLogin("cp@example.com", "old-password").status == 401)
            #expect(try await c.emailLogin("cp@example.com", "new-password").status == 200)

            // A user with no email/password identity has no password to change.
            let guest = try await c.anonymous()
            let none = try await c.call(
                .post, route, json: ["password": "a-password", "newPassword": "new-password"],
                token: try #require(guest["access_token"]))
            #expect(none.status == 400 && none.message == "the user has no email/password identity", "\(none.body)")
        }
    }
}
