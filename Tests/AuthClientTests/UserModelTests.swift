// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Testing

/// realm-core's user model (docs/protocol/wire-protocol.md section 9), through the real server.
@Suite(.timeLimit(.minutes(5))) struct UserModelTests {
    @Test func loginMakesTheUserCurrentAndFetchesTheProfile() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            try await server.registerConfirmed(app, "ada@example.com")
            let ada = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            #expect(app.currentUser == ada && ada.state == .loggedIn && !ada.isAnonymous)
            #expect(ada.profile.email == "ada@example.com")
            #expect(ada.identities.map(\.providerType) == ["local-userpass"])
            #expect(ada.accessToken != nil && ada.refreshToken != nil && ada.deviceId != ObjectId.zero.hex)
            let anon = try await app.login(credentials: .anonymous())
            #expect(app.currentUser == anon && anon.isAnonymous)
            #expect(Set(app.allUsers.keys) == [ada.id, anon.id])
        }
    }

    @Test func aFailedLoginChangesNothing() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            let anon = try await app.login(credentials: .anonymous())
            await #expect { try await app.login(credentials: .emailPassword(email: "nobody@example.com", password: "password1")) } throws: {
                ($0 as? AuthClientError)?.code == "InvalidPassword" && ($0 as? AuthClientError)?.status == 401
            }
            #expect(app.currentUser == anon && app.allUsers.count == 1)
        }
    }

    @Test func anonymousReuseMakesNoRequest() async throws {
        try await LiveServer.run { server in
            let counter = RequestCounter()
            let app = try server.app(counter: counter)
            let first = try await app.login(credentials: .anonymous())
            let before = counter.total
            let again = try await app.login(credentials: .anonymous(reuse: true))
            #expect(again == first && counter.total == before)
            let fresh = try await app.login(credentials: .anonymous(reuse: false))
            #expect(fresh != first && counter.total > before)
        }
    }

    @Test func logoutFallsBackToAnotherLoggedInUser() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            try await server.registerConfirmed(app, "ada@example.com")
            let ada = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            let anon = try await app.login(credentials: .anonymous())
            try await anon.logOut()
            #expect(anon.state == .removed)  // anonymous: Removed on logout
            #expect(app.currentUser == ada)
            let oldRefresh = try #require(ada.refreshToken)
            try await ada.logOut()
            #expect(ada.state == .loggedOut && ada.accessToken == nil)  // email: LoggedOut
            #expect(app.currentUser == nil)
            #expect(Array(app.allUsers.keys) == [ada.id])  // LoggedOut users stay listed
            try await ada.logOut()  // a no-op
            // The session is revoked on the server: the old refresh token no longer works.
            let refused = try await AsyncHTTPTransport().send(
                TransportRequest(
                    method: "POST", url: server.origin + Routes.session, headers: [("Authorization", "Bearer \(oldRefresh)")]))
            #expect(refused.status == 401)
        }
    }

    @Test func removeDeleteAndSwitchFollowTheirRules() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            try await server.registerConfirmed(app, "ada@example.com")
            let ada = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            let anon = try await app.login(credentials: .anonymous())
            try app.switchUser(to: ada)
            #expect(app.currentUser == ada)
            try await ada.logOut()
            #expect { try app.switchUser(to: ada) } throws: { ($0 as? AuthClientError)?.code == AuthClientError.userNotLoggedIn }
            // delete needs a logged-in user, and changes nothing when refused.
            await #expect { try await ada.delete() } throws: { ($0 as? AuthClientError)?.code == AuthClientError.userNotLoggedIn }
            #expect(ada.state == .loggedOut)
            try await ada.remove()
            #expect(ada.state == .removed && app.allUsers[ada.id] == nil)
            await #expect { try await ada.remove() } throws: { ($0 as? AuthClientError)?.message == "User has already been removed" }
            #expect { try app.switchUser(to: ada) } throws: { ($0 as? AuthClientError)?.code == AuthClientError.userNotFound }
            try await anon.delete()
            #expect(anon.state == .removed && app.currentUser == nil)
        }
    }

    @Test func linkingIsCheckedBeforeAnyRequest() async throws {
        try await LiveServer.run { server in
            let counter = RequestCounter()
            let app = try server.app(counter: counter)
            try await server.registerConfirmed(app, "ada@example.com")
            let anon = try await app.login(credentials: .anonymous())
            let before = counter.total
            await #expect { try await anon.linkIdentity(credentials: .anonymous()) } throws: {
                ($0 as? AuthClientError)?.message == "Cannot add anonymous credentials to an existing user."
            }
            #expect(counter.total == before)
            try await anon.linkIdentity(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            #expect(anon.identities.map(\.providerType) == ["anon-user", "local-userpass"] && !anon.isAnonymous)
            // Logging in through the linked identity gives the same user.
            let again = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            #expect(again == anon)
            try await anon.logOut()
            let count = counter.total
            await #expect { try await anon.linkIdentity(credentials: .emailPassword(email: "x@example.com", password: "password1")) } throws: {
                ($0 as? AuthClientError)?.message == "The specified user is not logged in."
            }
            #expect(counter.total == count)
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct ClientAPIKeyTests {
    @Test func apiKeyLifecycle() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            try await server.registerConfirmed(app, "ada@example.com")
            let ada = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            let created = try await ada.apiKeys.create(name: "ci")
            let secret = try #require(created.key)
            let listed = try await ada.apiKeys.list()
            #expect(listed.map(\.name) == ["ci"] && listed.first?.key == nil)
            try await ada.apiKeys.disable(id: created.id)
            #expect(try await ada.apiKeys.fetch(id: created.id).disabled)
            await #expect { try await app.login(credentials: .userAPIKey(secret)) } throws: {
                ($0 as? AuthClientError)?.message == "invalid API key"
            }
            try await ada.apiKeys.enable(id: created.id)
            #expect(try await app.login(credentials: .userAPIKey(secret)) == ada)
            // Deleting the key ends the sessions it opened: log in by password to delete it.
            _ = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            try await ada.apiKeys.delete(id: created.id)
            await #expect { try await ada.apiKeys.fetch(id: created.id) } throws: { ($0 as? AuthClientError)?.code == "APIKeyNotFound" }
        }
    }
}

/// An error's request is named by method and path only: no host, no query string.
@Test func anErrorsRequestIsItsMethodAndPath() {
    #expect(AuthClientError.requestLine("POST", "http://127.0.0.1:9090/api/client/v2.0/auth/session") == "POST /api/client/v2.0/auth/session")
    #expect(
        AuthClientError.requestLine("GET", "https://h.example/api/dev/v1/apps/local/outbox?email=a%40b&kind=confirm")
            == "GET /api/dev/v1/apps/local/outbox")
    #expect(AuthClientError.requestLine("GET", "https://h.example/x#frag") == "GET /x")
    #expect(AuthClientError.requestLine("GET", "https://h.example") == "GET /")
}
