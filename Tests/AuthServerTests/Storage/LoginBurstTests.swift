import AsyncHTTPClient
import AuthProtocol
import Foundation
import NIOCore
import TestSupport
import Testing

@testable import AuthServer

/// A login storm on a real server and a real SQLite file, where the writes of concurrent logins
/// may share transactions (group commit; `GroupCommitTests` shows they do): every client still
/// gets a user and a session of its own, usable by its next request. (`CrashRecoveryTests` kills the server during such a load: no
/// answered login is lost.)
@Suite(.timeLimit(.minutes(3))) struct LoginBurstTests {
    @Test func everyClientOfABurstGetsItsOwnUserAndSession() async throws {
        let dir = try TemporaryDirectory("burst")
        var config = TestServer.configuration(database: .directory(dir.path))
        config.apps[0].rateLimits.enabled = false
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            let base = "http://127.0.0.1:\(port)/api/client/v2.0"
            var pool = HTTPClient.Configuration.ConnectionPool()
            pool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
            // Waiting for a pooled connection counts against `connect`: on a busy machine a
            // burst's last requests wait long for one.
            let client = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .init(timeout: .init(connect: .seconds(120), read: .seconds(120)), connectionPool: pool))
            defer { _ = Task { try? await client.shutdown() } }
            @Sendable func post(_ path: String, json: String?, token: String?) async throws -> (status: UInt, body: EJSON) {
                var request = HTTPClientRequest(url: base + path)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                if let json { request.body = .bytes(ByteBuffer(string: json)) }
                if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
                let response = try await client.execute(request, timeout: .seconds(60))
                let bytes = Array(try await response.body.collect(upTo: 1 << 16).readableBytesView)
                return (response.status.code, try EJSON(parsing: bytes))
            }
            let burst = 300
            let logins = try await withThrowingTaskGroup(of: (user: String, refresh: String).self) { group in
                for _ in 0..<burst {
                    group.addTask {
                        let r = try await post("/app/local/auth/providers/anon-user/login", json: #"{"provider":"anon-user"}"#, token: nil)
                        #expect(r.status == 200, "\(r.body)")
                        return (r.body["user_id"]?.stringValue ?? "", r.body["refresh_token"]?.stringValue ?? "")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(logins.map(\.user)).count == burst, "users shared between clients")
            #expect(Set(logins.map(\.refresh)).count == burst)
            // Each session is there for its client's next request, as that client's user.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for login in logins {
                    group.addTask {
                        let refreshed = try await post("/auth/session", json: nil, token: login.refresh)
                        #expect(refreshed.status == 201, "\(refreshed.body)")
                        let access = try #require(refreshed.body["access_token"]?.stringValue)
                        var request = HTTPClientRequest(url: base + "/auth/profile")
                        request.headers.add(name: "Authorization", value: "Bearer \(access)")
                        let profile = try await client.execute(request, timeout: .seconds(60))
                        let body = try EJSON(parsing: Array(try await profile.body.collect(upTo: 1 << 16).readableBytesView))
                        #expect(body["user_id"]?.stringValue == login.user)
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
