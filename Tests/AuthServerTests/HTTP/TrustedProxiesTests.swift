// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import NIOCore
import Testing

/// Behind a reverse proxy: the client's address comes from `X-Forwarded-For` only for requests
/// from a trusted proxy, and only from the part of it the trusted proxies appended.
@Suite(.timeLimit(.minutes(5))) struct TrustedProxiesTests {
    static func client(_ proxies: [String], peer: String, _ header: String...) throws -> String? {
        let trusted = try TrustedProxies(proxies)
        guard trusted.isTrusted(peer: try SocketAddress(ipAddress: peer, port: 1)) else { return nil }
        return trusted.client(forwardedFor: header).map { AuthRequestContext.clientKey($0) }
    }

    @Test func theRightmostAddressThatIsNotATrustedProxy() throws {
        #expect(try Self.client(["127.0.0.1"], peer: "127.0.0.1", "203.0.113.5") == "203.0.113.5")
        // The client wrote the left entry itself: only what the proxy appended counts.
        #expect(try Self.client(["127.0.0.1"], peer: "127.0.0.1", "1.2.3.4, 203.0.113.5") == "203.0.113.5")
        #expect(try Self.client(["127.0.0.1"], peer: "127.0.0.1", "1.2.3.4", "203.0.113.5") == "203.0.113.5")
        // Two proxies in a row, both trusted.
        #expect(try Self.client(["10.0.0.0/8", "127.0.0.1"], peer: "127.0.0.1", "1.2.3.4, 198.51.100.7, 10.1.2.3") == "198.51.100.7")
        #expect(try Self.client(["10.0.0.0/8"], peer: "10.200.0.1", "198.51.100.7:4711") == "198.51.100.7")
        #expect(try Self.client(["fd00::/8"], peer: "fd00::1", "[2001:db8:1:2::5]:443") == "20.1.d.b8.0.1.0.2::/64")
        #expect(try Self.client(["::1"], peer: "::1", "2001:db8::1") == "20.1.d.b8.0.0.0.0::/64")
        #expect(try Self.client(["127.0.0.1"], peer: "::ffff:127.0.0.1", "::ffff:203.0.113.9") == "203.0.113.9")
    }

    @Test func thePeerWhenTheHeaderCannotBeBelieved() throws {
        // Not from a trusted proxy: the header is the client's own claim.
        #expect(try Self.client(["10.0.0.0/8"], peer: "127.0.0.1", "203.0.113.5") == nil)
        #expect(try Self.client([], peer: "127.0.0.1", "203.0.113.5") == nil)
        // Unreadable where it matters, or nothing but proxies.
        #expect(try Self.client(["127.0.0.1"], peer: "127.0.0.1", "203.0.113.5, not-an-address") == nil)
        #expect(try Self.client(["127.0.0.1"], peer: "127.0.0.1", "203.0.113.5,") == nil)
        #expect(try Self.client(["127.0.0.0/8"], peer: "127.0.0.1", "127.0.0.2") == nil)
        // Left of the client, anything goes: it is never read.
        #expect(try Self.client(["127.0.0.1"], peer: "127.0.0.1", "garbage, 203.0.113.5") == "203.0.113.5")
    }

    @Test func rangesAreChecked() throws {
        // Not /0 either: it would trust every client to say who it is.
        for bad in [
            "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/8/8", "proxy.example.com", "", "10.0.0.0/-1", "10.0.0.0/+8",
            "0.0.0.0/0", "::/0",
        ] {
            #expect(throws: ConfigError.self, "\(bad)") { try TrustedProxies([bad]) }
        }
        let t = try TrustedProxies(["192.168.0.0/23", "0.0.0.0/1", "128.0.0.0/1"])
        #expect(t.contains([192, 168, 1, 255]) && t.contains([8, 8, 8, 8]))
        let narrow = try TrustedProxies(["192.168.0.0/23"])
        #expect(narrow.contains([192, 168, 1, 1]) && !narrow.contains([192, 168, 2, 1]))
    }

    /// Through HTTP: the rate limit per address counts each forwarded client apart behind a
    /// trusted proxy, and the audit log names them; without trust the header changes nothing.
    @Test func rateLimitsAndTheAuditLogSeeTheForwardedClient() async throws {
        for trusted in [true, false] {
            let directory = Scratch.path("proxy")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var app = AppConfiguration(id: "local")
            app.rateLimits.enabled = true
            app.rateLimits.limits[.anonymous] = .init(perAddress: 2, perAccount: 0, windowSeconds: 3600)
            var config = TestServer.configuration(apps: [app], database: .directory(directory))
            if trusted { config.trustedProxies = try TrustedProxies(["127.0.0.1", "::1"]) }
            try await TestServer.run(config, mode: .live) { (c: Client) async throws in
                func login(_ from: String) async throws -> Int {
                    try await c.call(
                        .post, Routes.login("local", provider: "anon-user"), json: ["provider": "anon-user"],
                        headers: [("X-Forwarded-For", "6.6.6.6, " + from)]
                    ).status
                }
                #expect(try await login("203.0.113.1") == 200)
                #expect(try await login("203.0.113.1") == 200)
                #expect(try await login("203.0.113.1") == 429)
                // Another client behind the same proxy has its own allowance, when the proxy is trusted.
                #expect(try await login("203.0.113.2") == (trusted ? 200 : 429))
            }
            let store = try SQLiteStore(path: directory + "/authsh.sqlite")
            let addresses = Set(try await store.auditEvents(AuditFilter(limit: 100)).compactMap(\.address))
            #expect(addresses == (trusted ? ["203.0.113.1", "203.0.113.2"] : ["127.0.0.1"]), "\(addresses)")
        }
    }
}
