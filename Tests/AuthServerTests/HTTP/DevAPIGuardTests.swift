// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import HTTPTypes
import Testing

/// A web page the developer visits cannot drive the dev API of a server on their machine.
@Suite(.timeLimit(.minutes(5))) struct DevAPIGuardTests {
    static let users = "\(Routes.dev)/apps/local/users"
    static let clock = "\(Routes.dev)/clock"
    static let outbox = "\(Routes.dev)/apps/local/outbox"

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil])
    func aBodyThatIsNotJSONIsRefused(type: String?) async throws {
        try await TestServer.run { c in
            let r = try await c.call(.post, Self.clock, raw: Array(#"{"advanceSeconds":60}"#.utf8), headers: [("Content-Type", type)])
            #expect(r.status == 415 && r.code == "UnsupportedMediaType", "\(String(describing: type)): \(r.body)")
            let patch = try await c.call(.patch, "\(Routes.dev)/apps/local/config", raw: Array("{}".utf8), headers: [("Content-Type", type)])
            #expect(patch.status == 415)
            #expect(try await c.call(.get, Self.clock).body["now"] != nil)
        }
    }

    @Test func anotherOriginIsRefusedAndTheServersOwnServed() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("v@example.com")
            for (name, value) in [("Origin", "https://evil.example"), ("Origin", "null"), ("Sec-Fetch-Site", "cross-site")] {
                for (method, path) in [(HTTPRequest.Method.delete, Self.users), (.get, Self.outbox), (.delete, Self.outbox)] {
                    let r = try await c.call(method, path, headers: [(name, value)])
                    #expect(r.status == 403 && r.code == "Forbidden", "\(name): \(value) \(method) \(path): \(r.body)")
                }
            }
            // Nothing was wiped.
            #expect(try await c.emailLogin("v@example.com", "password1").status == 200)
            // The server's own page (the router test client addresses `localhost`) is served.
            #expect(try await c.call(.get, Self.outbox, headers: [("Origin", "http://localhost")]).status == 200)
        }
    }

    @Test func aRebindingHostNameIsRefusedOnLoopback() async throws {
        // Raw requests: the Host header as a browser on a rebound name would send it.
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            let port = try #require(c.client.port)
            func status(_ host: String) async throws -> String {
                let answer = try await RawHTTP.exchange(port: port, "GET \(Self.clock) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                return String(answer.prefix(12))
            }
            for host in ["evil.example", "evil.example:\(port)", "localhost.evil.example", "127.0.0.1.evil.example"] {
                #expect(try await status(host) == "HTTP/1.1 403", "\(host)")
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
                #expect(try await status(host) == "HTTP/1.1 200", "\(host)")
            }
        }
    }
}
