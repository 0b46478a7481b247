// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// `GET {app}/location`: realm-core sends every later request to its `hostname`, so it is
/// where the server really is, over the scheme the client really used, never a name that a
/// request's `Host` chose.
@Suite(.timeLimit(.minutes(5))) struct LocationTests {
    /// `hostname` and `ws_hostname` of a raw request to the server on `port`.
    static func location(port: Int, headers: [String]) async throws -> (hostname: String?, ws: String?) {
        let request =
            "GET \(Routes.location("local")) HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined()
            + "Connection: close\r\n\r\n"
        let answer = try await RawHTTP.exchange(port: port, request)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(300))")
        let body = try #require(answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) })
        let json = try EJSON(parsing: Array(body.utf8))
        return (json["hostname"]?.stringValue, json["ws_hostname"]?.stringValue)
    }

    @Test func publicURLIsTheAnswerWhateverHostSays() async throws {
        var config = TestServer.configuration(dev: false)
        config.publicURL = "https://auth.example.com"
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            for host in ["evil.example", "127.0.0.1:\(port)"] {
                let answer = try await Self.location(port: port, headers: ["Host: \(host)"])
                #expect(answer.hostname == "https://auth.example.com" && answer.ws == "wss://auth.example.com", "\(answer)")
            }
        }
    }

    @Test func withoutPublicURLTheAnswerIsTheAddressConnectedToNeverTheHostHeader() async throws {
        for dev in [false, true] {
            try await TestServer.run(TestServer.configuration(dev: dev), mode: .live) { c in
                let port = try #require(c.client.port)
                let own = "127.0.0.1:\(port)"
                for host in ["evil.example", "127.0.0.1.evil.example:\(port)", "evil.example:\(port)"] {
                    let answer = try await Self.location(port: port, headers: ["Host: \(host)"])
                    #expect(answer.hostname == "http://\(own)" && answer.ws == "ws://\(own)", "dev \(dev), Host \(host): \(answer)")
                }
                // An untrusted peer's proxy headers say nothing.
                let proxied = try await Self.location(
                    port: port,
                    headers: [
                        "Host: \(own)", "X-Forwarded-Proto: https",
                        "X-Forwarded-Host: evil.example",
                    ])
                #expect(proxied.hostname == "http://\(own)", "\(proxied)")
            }
        }
        // In dev mode on loopback, the loopback name the client used is kept.
        try await TestServer.run(TestServer.configuration(dev: true), mode: .live) { c in
            let port = try #require(c.client.port)
            let answer = try await Self.location(port: port, headers: ["Host: localhost:\(port)"])
            #expect(answer.hostname == "http://localhost:\(port)", "\(answer)")
        }
    }

    @Test func aTrustedTLSProxySchemeAndHostAreKept() async throws {
        var config = TestServer.configuration(dev: false)
        config.trustedProxies = try TrustedProxies(["127.0.0.1"])
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            let answer = try await Self.location(
                port: port,
                headers: [
                    "Host: 127.0.0.1:\(port)", "X-Forwarded-Proto: https",
                    "X-Forwarded-Host: app.example.com", "X-Forwarded-For: 6.6.6.6",
                ])
            #expect(answer.hostname == "https://app.example.com" && answer.ws == "wss://app.example.com", "\(answer)")
            let plain = try await Self.location(port: port, headers: ["Host: auth.example.com", "X-Forwarded-For: 6.6.6.6"])
            #expect(plain.hostname == "http://auth.example.com" && plain.ws == "ws://auth.example.com", "\(plain)")
        }
    }
}
