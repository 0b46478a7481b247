// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// Links in mails point where the operator says (`publicURL`, `resetPasswordUrl`), never
/// where a request's `Host` header says.
@Suite(.timeLimit(.minutes(5))) struct MailLinkTests {
    static func resetLink(_ c: Client, _ email: String) async throws -> EJSON {
        try await c.registerConfirmed(email)
        #expect(try await c.userpass("reset/send", ["email": .string(email)]).status == 200)
        return try #require(try await c.outbox(email, kind: "reset").last)
    }

    @Test func aForeignHostHeaderNeverBecomesALink() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            try await c.registerConfirmed("victim@example.com")
            let port = try #require(c.client.port)
            let body = #"{"email":"victim@example.com"}"#
            let answer = try await RawHTTP.exchange(
                port: port,
                "POST \(Routes.userpass("local", "reset/send")) HTTP/1.1\r\n"
                    + "Host: evil.example\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(body)")
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(100))")
            let mail = try #require(try await c.outbox("victim@example.com", kind: "reset").last)
            #expect(mail["link"] == "", "\(mail)")
            let text = try #require(mail["body"]?.stringValue)
            #expect(!text.contains("evil") && text.contains(mail["token"]!.stringValue!) && text.contains(mail["tokenId"]!.stringValue!))
        }
    }

    @Test func publicURLMakesTheLinks() async throws {
        var config = TestServer.configuration()
        config.publicURL = "https://auth.example.com/base"
        try await TestServer.run(config) { c in
            let mail = try await Self.resetLink(c, "p@example.com")
            #expect(mail["link"]?.stringValue?.hasPrefix("https://auth.example.com/base/reset?token=") == true, "\(mail)")
        }
    }

    @Test func theAppsResetURLWinsOverPublicURL() async throws {
        var app = AppConfiguration(id: "local")
        app.providers.userpass?.resetPasswordUrl = "https://app.example.com/reset"
        var config = TestServer.configuration(apps: [app])
        config.publicURL = "https://auth.example.com"
        try await TestServer.run(config) { c in
            let mail = try await Self.resetLink(c, "u@example.com")
            #expect(mail["link"]?.stringValue?.hasPrefix("https://app.example.com/reset?token=") == true, "\(mail)")
        }
    }

    @Test func withoutPublicURLOnlyADevServerOnLoopbackLinksToItself() async throws {
        try await TestServer.run { c in
            let mail = try await Self.resetLink(c, "l@example.com")
            #expect(mail["link"]?.stringValue?.hasPrefix("http://localhost/reset?token=") == true, "\(mail)")
        }
        var remote = TestServer.configuration()
        remote.host = "0.0.0.0"
        try await TestServer.run(remote) { c in
            let mail = try await Self.resetLink(c, "r@example.com")
            #expect(mail["link"] == "", "\(mail)")
        }
    }

    @Test func configRefusesAPublicURLThatIsNotAnOrigin() throws {
        for bad in ["auth.example.com", "ftp://x", "https://", "https://a.example/?q=1", "https://u@a.example"] {
            var c = ServerConfiguration()
            #expect(throws: ConfigError.self, "\(bad)") {
                try c.loadConfig(Array(#"{"publicURL":"\#(bad)","apps":[{"id":"a"}]}"#.utf8), file: "c.json")
            }
        }
        var c = ServerConfiguration()
        try c.loadConfig(Array(#"{"publicURL":"https://auth.example.com/","apps":[{"id":"a"}]}"#.utf8), file: "c.json")
        #expect(c.publicURL == "https://auth.example.com")
    }
}
