import AuthClient
import AuthProtocol
import Testing

/// Tokens: refresh on a 401, shared refreshes, a revoked refresh token, transport failures.
@Suite struct ClientSessionTests {
    @Test func anExpiredAccessTokenIsRefreshedTransparently() async throws {
        try await LiveServer.run { server in
            let counter = RequestCounter()
            let app = try server.app(counter: counter)
            let user = try await app.login(credentials: .anonymous())
            let old = user.accessToken
            try await server.advanceClock(1900)               // past the 30-minute access token
            let profile = try await user.refreshProfile()
            #expect(profile.data.isEmpty && user.accessToken != old)
            #expect(counter.count("POST", Routes.session) == 1)
        }
    }

    @Test func concurrentRequestsShareOneRefresh() async throws {
        try await LiveServer.run { server in
            let counter = RequestCounter()
            let app = try server.app(counter: counter)
            let user = try await app.login(credentials: .anonymous())
            try await server.advanceClock(1900)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await user.refreshProfile() } }
                try await group.waitForAll()
            }
            #expect(counter.count("POST", Routes.session) == 1)
        }
    }

    @Test func aRevokedRefreshTokenLogsTheUserOut() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            try await server.registerConfirmed(app, "ada@example.com")
            let ada = try await app.login(credentials: .emailPassword(email: "ada@example.com", password: "password1"))
            // Another client revokes the session (wipe deletes every session of the app).
            _ = try await server.dev("DELETE", "/apps/local/users")
            try await server.advanceClock(1900)
            await #expect { try await ada.refreshProfile() } throws: { ($0 as? AuthClientError)?.code == "InvalidSession" }
            #expect(ada.state == .loggedOut && app.currentUser == nil)
        }
    }

    @Test func customDataAndFunctionsUseTheAccessToken() async throws {
        try await LiveServer.run { server in
            let app = try server.app()
            let user = try await app.login(credentials: .anonymous())
            #expect(user.customData == nil)
            let missing = await #expect(throws: AuthClientError.self) { try await user.callFunction(name: "nope") }
            #expect(missing?.code == "FunctionNotFound" && missing?.status == 404)
        }
    }

    @Test func transportFailuresNameTheServer() async throws {
        // A port nothing listens on: refused.
        let app = try App(id: "local", configuration: .init(baseURL: "http://127.0.0.1:9", requestTimeout: .seconds(5)))
        let refused = await #expect(throws: AuthClientError.self) { try await app.login(credentials: .anonymous()) }
        #expect(refused?.code == AuthClientError.connectionFailed && refused?.message.contains("http://127.0.0.1:9") == true)
        // A server that answers garbage (a transport seam: the fault cannot be staged on a real server).
        let garbage = try App(id: "local", configuration: .init(baseURL: "http://example.test"), transport: Garbage())
        let bad = await #expect(throws: AuthClientError.self) { try await garbage.login(credentials: .anonymous()) }
        #expect(bad?.code == AuthClientError.malformedResponse && bad?.message.contains("not JSON") == true)
    }

    struct Garbage: AuthTransport {
        func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
            TransportResponse(status: 200, body: Array("<html>oops</html>".utf8))
        }
    }
}
