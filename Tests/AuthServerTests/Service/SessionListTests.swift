// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// A user's sessions (list, end one, end the others) and recent-login enforcement
/// (docs/protocol/identity-providers.md section 6) through HTTP, with the dev clock.
@Suite(.timeLimit(.minutes(5))) struct SessionListTests {
    static let sessions = Routes.base + "/auth/sessions"

    static func advance(_ c: Client, _ seconds: Int64) async throws {
        #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": .int64(seconds)]).status == 200)
    }

    /// The claims of a JWT, unverified.
    static func claims(_ token: String) throws -> EJSON {
        let parts = token.split(separator: ".")
        return try EJSON(parsing: try #require(Base64.decode(String(parts[1]))))
    }

    @Test func aUserListsAndEndsTheirOwnSessions() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("s@example.com")
            let device = ObjectId.zero.hex.dropLast() + "7"
            let here = try await c.login(
                "local-userpass",
                [
                    "username": "s@example.com", "password": "password1",
                    "options": ["device": ["deviceId": .string(String(device))]],
                ])
            let phone = try await c.emailLogin("s@example.com", "password1")
            let laptop = try await c.emailLogin("s@example.com", "password1")
            let token = try #require(here["access_token"])

            let list = try await c.call(.get, Self.sessions, token: token)
            let items = try #require(list.body.arrayValue, "\(list.body)")
            #expect(items.count == 3)
            #expect(items.filter { $0["current"] == true }.count == 1)
            let current = try #require(items.first { $0["current"] == true })
            #expect(current["device_id"]?.stringValue == String(device))
            #expect(current["last_used"] == current["created"])

            // A refresh a minute or more later shows in last_used; sooner, it is not written.
            let created = try #require(current["created"]?.integerValue)
            try await Self.advance(c, 30)
            #expect(try await c.refresh(try #require(here["refresh_token"])).status == 201)
            let soon = try await c.call(.get, Self.sessions, token: token).body.arrayValue?.first { $0["current"] == true }
            #expect(soon?["last_used"]?.integerValue == created, "a refresh within a minute is not written")
            try await Self.advance(c, 90)
            #expect(try await c.refresh(try #require(here["refresh_token"])).status == 201)
            let later = try await c.call(.get, Self.sessions, token: token).body.arrayValue?.first { $0["current"] == true }
            let lastUsed = try #require(later?["last_used"]?.integerValue)
            #expect(lastUsed >= created + 120 && lastUsed < created + 150, "the dev clock moved 120 s (and real time a little)")

            // Ending the phone's session ends its tokens, not the caller's.
            let phoneAccess = try #require(phone["access_token"])
            let phoneId = try #require(Self.claims(phoneAccess)["iss"]?.stringValue)
            let ended = try await c.call(.delete, Self.sessions + "/" + phoneId, token: token)
            #expect(ended.status == 200, "\(ended.body)")
            #expect(try await c.refresh(try #require(phone["refresh_token"])).status == 401)
            #expect(try await c.profile(try #require(phone["access_token"])).status == 401)
            #expect(try await c.profile(token).status == 200)
            #expect(try await c.call(.delete, Self.sessions + "/" + phoneId, token: token).code == "SessionNotFound")

            // Another user's session is not the caller's to end.
            let other = try await c.anonymous()
            let otherAccess = try #require(other["access_token"])
            let otherSession = try #require(Self.claims(otherAccess)["iss"]?.stringValue)
            let foreign = try await c.call(.delete, Self.sessions + "/" + otherSession, token: token)
            #expect(foreign.status == 404 && foreign.code == "SessionNotFound", "\(foreign.body)")
            #expect(try await c.profile(try #require(other["access_token"])).status == 200)

            // Ending all the others leaves the caller alone.
            let all = try await c.call(.delete, Self.sessions, token: token)
            #expect(all.body["revoked"] == 1, "\(all.body)")
            #expect(try await c.refresh(try #require(laptop["refresh_token"])).status == 401)
            #expect(try await c.refresh(try #require(here["refresh_token"])).status == 201)
            #expect(try await c.call(.get, Self.sessions, token: token).body.arrayValue?.count == 1)
            #expect(try await c.call(.get, Self.sessions).status == 401)
        }
    }

    @Test func sensitiveOperationsNeedARecentLogin() async throws {
        var app = AppConfiguration(id: "local")
        app.recentLoginSeconds = 300
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            try await c.registerConfirmed("r@example.com", "old-password")
            let login = try await c.emailLogin("r@example.com", "old-password")
            let token = try #require(login["access_token"])
            let loginTime = try #require(Self.claims(token)["auth_time"]?.integerValue)
            let issuedAt = try #require(try Self.claims(token)["iat"]?.integerValue)
            #expect(loginTime <= issuedAt && issuedAt - loginTime < 30, "auth_time is the login's time (iat comes a moment later under load)")

            try await Self.advance(c, 301)
            // A refresh gives a new access token with the login's auth_time: still not recent.
            let refreshed = try await c.refresh(try #require(login["refresh_token"]))
            let fresh = try #require(refreshed["access_token"])
            #expect(try Self.claims(fresh)["auth_time"]?.integerValue == loginTime)
            let sessionId = try #require(Self.claims(fresh)["iss"]?.stringValue)
            let identity = try #require(try await c.profile(fresh).body["identities"]?.arrayValue?.first?["id"]?.stringValue)
            let refused: [(String, Reply)] = [
                ("delete", try await c.call(.delete, Routes.deleteUser, token: fresh)),
                (
                    "unlink",
                    try await c.call(
                        .post, Routes.base + "/auth/unlink",
                        json: ["provider_type": "local-userpass", "id": .string(identity)], token: fresh)
                ),
                (
                    "change",
                    try await c.call(
                        .post, Routes.userpass("local", "change"),
                        json: ["password": "old-password", "newPassword": "new-password"], token: fresh)
                ),
                ("revoke one", try await c.call(.delete, Self.sessions + "/" + sessionId, token: fresh)),
                ("revoke others", try await c.call(.delete, Self.sessions, token: fresh)),
            ]
            for (what, reply) in refused {
                #expect(reply.status == 401 && reply.code == "RequiresRecentLogin", "\(what): \(reply.body)")
            }
            // Listing needs no recent login; the old session still works for everything else.
            #expect(try await c.call(.get, Self.sessions, token: fresh).status == 200)
            #expect(try await c.profile(fresh).status == 200)

            // Logging in again makes it recent: the delete goes through.
            let again = try await c.emailLogin("r@example.com", "old-password")
            let deleted = try await c.call(.delete, Routes.deleteUser, token: try #require(again["access_token"]))
            #expect(deleted.status == 200, "\(deleted.body)")
        }
    }
}
