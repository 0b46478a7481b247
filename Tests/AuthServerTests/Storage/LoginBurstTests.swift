// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
import Foundation
import NIOCore
import TestSupport
import Testing

@testable import AuthServer

/// A login storm on a real server and a real SQLite file, where the writes of concurrent logins
/// may share transactions (group commit; how many do depends on the machine's load, so the test
/// prints the server's writes and commits and asserts only that both were counted). Every client
/// still gets a user and a session of its own, usable by its next request; registrations of one
/// email in the same burst, whose writes fail but one, fail alone (409) while the logins around
/// them are answered. `GroupCommitTests` shows a failing write's batch on the engine itself;
/// `CrashRecoveryTests` makes batches certain (it holds the write lock until writes queue) and
/// kills the server among them: no answered login is lost.
@Suite(.timeLimit(.minutes(3))) struct LoginBurstTests {
    @Test func everyClientOfABurstGetsItsOwnUserAndSession() async throws {
        let dir = try TemporaryDirectory("burst")
        var config = TestServer.configuration(database: .directory(dir.path))
        config.apps[0].rateLimits.enabled = false
        try await MetricsTests.run(config) { c, metrics in
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
            let before = try await MetricsTests.scrape(metrics)
            let burst = 300
            let registrations = 20
            let outcomes = try await withThrowingTaskGroup(of: (user: String, refresh: String, registered: UInt?).self) { group in
                for i in 0..<burst + registrations {
                    group.addTask {
                        if i % 16 == 0 && i / 16 < registrations {
                            let r = try await post(
                                "/app/local/auth/providers/local-userpass/register",
                                json: #"{"email":"same@example.com","password":"password1"}"#, token: nil)
                            return ("", "", r.status)
                        }
                        let r = try await post("/app/local/auth/providers/anon-user/login", json: #"{"provider":"anon-user"}"#, token: nil)
                        #expect(r.status == 200, "\(r.body)")
                        return (r.body["user_id"]?.stringValue ?? "", r.body["refresh_token"]?.stringValue ?? "", nil)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let after = try await MetricsTests.scrape(metrics)
            func delta(_ name: String, _ labels: [String: String]) -> Double { after.sum(name, labels) - before.sum(name, labels) }
            let writes = delta("authsh_db_operations_total", ["kind": "write"])
            let commits = delta("authsh_db_commits_total", [:])
            #expect(0 < commits && commits <= writes, "the burst's \(Int(writes)) writes took \(Int(commits)) commits")
            print("LoginBurstTests: \(Int(writes)) writes in \(Int(commits)) commits")
            // One registration of the email committed; each of the others failed alone.
            let registered = outcomes.compactMap(\.registered)
            #expect(registered.count == registrations)
            #expect(registered.filter { $0 == 201 }.count == 1, "\(registered)")
            #expect(registered.filter { $0 == 409 }.count == registrations - 1, "\(registered)")
            let logins = outcomes.filter { $0.registered == nil }.map { (user: $0.user, refresh: $0.refresh) }
            #expect(logins.count == burst)
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
