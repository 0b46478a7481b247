// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Foundation
import TestSupport
import Glibc
import Testing

/// Tokens: refresh on a 401, shared refreshes, a revoked refresh token, transport failures.
@Suite(.timeLimit(.minutes(5))) struct ClientSessionTests {
    @Test func anExpiredAccessTokenIsRefreshedTransparently() async throws {
        try await LiveServer.run { server in
            let counter = RequestCounter()
            let app = try server.app(counter: counter)
            let user = try await app.login(credentials: .anonymous())
            let old = user.accessToken
            try await server.advanceClock(1900)  // past the 30-minute access token
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

    /// A function sets the caller's custom data; the next access token carries it, and a
    /// function's result and errors come back as EJSON and AuthClientError.
    @Test func customDataAndFunctionsUseTheAccessToken() async throws {
        let plugins = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: plugins.path, withIntermediateDirectories: true)
        try Data(
            """
            return function(plan)
              context.users.setCustomData(context.user.id, {plan = plan})
              return {set = plan}
            end
            """.utf8
        ).write(to: URL(fileURLWithPath: plugins.path + "/setPlan.lua"))
        try await LiveServer.run({ $0.pluginsDirectory = plugins.path }) { server in
            let app = try server.app()
            let user = try await app.login(credentials: .anonymous())
            #expect(user.customData == nil)
            #expect(try await user.callFunction(name: "setPlan", arguments: ["pro"]) == ["set": "pro"])
            #expect(user.customData == nil)  // the token in hand predates the change
            #expect(try await user.refreshCustomData() == ["plan": "pro"])
            #expect(user.customData == ["plan": "pro"])
            let missing = await #expect(throws: AuthClientError.self) { try await user.callFunction(name: "nope") }
            #expect(missing?.code == "FunctionNotFound" && missing?.status == 404)
        }
    }

    @Test func transportFailuresNameTheServer() async throws {
        // A port nothing listens on: refused.
        let app = try App(id: "local", configuration: .init(baseURL: "http://127.0.0.1:9", requestTimeout: .seconds(5)))
        let refused = await #expect(throws: AuthClientError.self) { try await app.login(credentials: .anonymous()) }
        #expect(refused?.code == AuthClientError.connectionFailed && refused?.message.contains("http://127.0.0.1:9") == true)
        #expect(refused?.message == "cannot reach http://127.0.0.1:9: connection refused (nothing listens there)", "\(refused?.message ?? "")")
        #expect(refused?.neverSent == true, "a refused connection carried nothing")
        // A port that takes the connection and never answers: the request was sent.
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(silent, $0, length); _ = listen(silent, 4); _ = getsockname(silent, $0, &length)
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        let quiet = try App(id: "local", configuration: .init(baseURL: "http://127.0.0.1:\(port)", requestTimeout: .milliseconds(300)))
        let waited = await #expect(throws: AuthClientError.self) { try await quiet.login(credentials: .anonymous()) }
        #expect(waited?.code == AuthClientError.timedOut && waited?.neverSent == false)
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

@Suite(.timeLimit(.minutes(5))) struct ClientFaultTests {
    /// The real transport, with GET profile answered by a failure (a fault the real server
    /// cannot be made to produce on demand), and login answers without their profile (as from
    /// a server that does not send it) or, with `broken`, with a profile that is not one.
    final class FailingProfile: AuthTransport {
        let inner = AsyncHTTPTransport()
        let broken: Bool
        init(broken: Bool = false) { self.broken = broken }

        func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
            if request.method == "GET", request.url.hasSuffix(Routes.profile) {
                return TransportResponse(status: 503, body: Array(#"{"error":"down for maintenance","error_code":"MaintenanceInProgress"}"#.utf8))
            }
            var response = try await inner.send(request)
            if request.url.hasSuffix("/login"), case .document(var body)? = try? EJSON(parsing: response.body) {
                if broken, let userId = body["user_id"] {
                    body["profile"] = ["user_id": userId, "data": "not a document"]
                } else {
                    body["profile"] = nil
                }
                response.body = EJSON.document(body).encoded()
            }
            return response
        }
    }

    @Test func aProfileFailureFailsTheLogin() async throws {
        try await LiveServer.run { server in
            let app = try App(id: "local", configuration: .init(baseURL: server.origin), transport: FailingProfile())
            let error = await #expect(throws: AuthClientError.self) { try await app.login(credentials: .anonymous()) }
            #expect(error?.code == "MaintenanceInProgress" && error?.status == 503)
            #expect(app.currentUser == nil && app.allUsers.isEmpty)
        }
    }

    /// A login answer whose profile is malformed fails the login, and leaves nothing behind.
    @Test func aMalformedProfileInTheAnswerFailsTheLogin() async throws {
        try await LiveServer.run { server in
            let app = try App(id: "local", configuration: .init(baseURL: server.origin), transport: FailingProfile(broken: true))
            let error = await #expect(throws: AuthClientError.self) { try await app.login(credentials: .anonymous()) }
            #expect(error?.code == AuthClientError.malformedResponse)
            #expect(app.currentUser == nil && app.allUsers.isEmpty)
        }
    }

    @Test func aServerThatDoesNotAnswerInTimeIsATimeout() async throws {
        let plugins = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: plugins.path, withIntermediateDirectories: true)
        try Data("return function() while true do end end".utf8).write(to: URL(fileURLWithPath: plugins.path + "/spin.lua"))
        // The plugin spins for 12 s; the client waits 8 s. The margin is for the login: in a full
        // run, sync tests that wait for child processes can hold every cooperative thread of
        // this process (the in-process server's too) for seconds.
        try await LiveServer.run({
            $0.pluginsDirectory = plugins.path
            $0.pluginTimeLimit = .seconds(12)
        }) { server in
            let app = try App(id: "local", configuration: .init(baseURL: server.origin, requestTimeout: .seconds(8)))
            let user = try await app.login(credentials: .anonymous())
            let error = await #expect(throws: AuthClientError.self) { try await user.callFunction(name: "spin") }
            #expect(error?.code == AuthClientError.timedOut && error?.message.contains(server.origin) == true, "\(String(describing: error))")
        }
    }
}
