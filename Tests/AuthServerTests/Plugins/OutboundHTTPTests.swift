// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Testing

/// `context.http` through `functions/call` on a real server, against a local HTTP server the
/// test starts: an allowed host is reached, and everything an attacker (or a careless plugin)
/// would try is refused before a connection is made.
@Suite(.timeLimit(.minutes(5))) struct OutboundHTTPTests {
    static let plugin = """
        local m = {}
        function m.fetch(method, url, body)
          local r = context.http[method]{ url = url, headers = { ["X-Test"] = "yes" }, body = body }
          return { status = r.status, body = r.body, location = r.headers.location, type = r.headers["content-type"] }
        end
        return m
        """

    /// The local server: its port, stopped with the test.
    final class LocalServer: Sendable {
        let process: ChildProcess
        let port: Int
        private let directory: TemporaryDirectory

        init() async throws {
            let directory = try TemporaryDirectory()
            process = try ChildProcess(
                [Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/http/test-server.py"],
                output: directory.path + "/log")
            port = try await process.waitForOutput { log in
                log.split(separator: "\n").first { $0.hasPrefix("listening ") }.flatMap { Int($0.dropFirst(10)) }
            }
            self.directory = directory
        }
    }

    static func run(_ body: @escaping @Sendable (Client, String, Int) async throws -> Void) async throws {
        let local = try await LocalServer()
        let plugins = try PluginDirectory(["http.lua": plugin])
        let port = local.port
        // A deadline a busy machine does not reach before the request starts (the slow answer
        // still ends by it, long before the 30 s the local server takes).
        let config = TestServer.withPlugins(plugins.path, timeLimit: .seconds(10)) { app in
            app.httpAllowList = try! HTTPAllowList(["http://127.0.0.1:\(port)", "http://localhost:\(port)"], path: "httpAllowList")
        }
        try await TestServer.run(config) { c in
            let token = try await c.anonymousToken()
            try await body(c, token, port)
        }
        withExtendedLifetime(local) {}
    }

    static func fetch(_ c: Client, _ token: String, _ method: String, _ url: String, body: EJSON = .null) async throws -> Reply {
        try await c.function("fetch", [.string(method), .string(url), body], token: token)
    }

    @Test func aListedHostIsReachedAndRedirectsAreNotFollowed() async throws {
        try await Self.run { c, token, port in
            let post = try await Self.fetch(c, token, "post", "http://127.0.0.1:\(port)/echo?x=1", body: ["signup": "ada"])
            #expect(post.status == 200 && post.body["status"]?.integerValue == 200, "\(post.body)")
            let echoed = try EJSON(parsing: try #require(post.body["body"]?.stringValue))
            #expect(echoed["method"] == "POST" && echoed["path"] == "/echo?x=1")
            #expect(echoed["body"] == #"{"signup":"ada"}"#, "a table body goes as JSON")
            #expect(echoed["headers"]?["X-Test"] == "yes" && echoed["headers"]?["Content-Type"] == "application/json")
            #expect(post.body["type"] == "application/json", "answer headers, lowercased names")
            for method in ["get", "put", "delete"] {
                let r = try await Self.fetch(c, token, method, "http://127.0.0.1:\(port)/echo")
                #expect(r.body["status"]?.integerValue == 200, "\(method): \(r.body)")
            }
            let redirect = try await Self.fetch(c, token, "get", "http://127.0.0.1:\(port)/redirect")
            #expect(redirect.body["status"]?.integerValue == 302, "\(redirect.body)")
            #expect(redirect.body["location"] == "http://example.invalid/stolen", "handed back, not followed")
        }
    }

    @Test func whatIsNotListedIsRefusedBeforeAnyConnection() async throws {
        try await Self.run { c, token, port in
            let refused: [(String, String)] = [
                ("http://127.0.0.1:\(port + 1)/echo", "is not in the app's httpAllowList"),
                ("https://127.0.0.1:\(port)/echo", "is not in the app's httpAllowList"),
                ("http://0x7f.1:\(port)/echo", "is not in the app's httpAllowList"),
                ("http://2130706433:\(port)/echo", "is not in the app's httpAllowList"),
                ("http://127.1:\(port)/echo", "is not in the app's httpAllowList"),
                ("http://[::ffff:127.0.0.1]:\(port)/echo", "is not in the app's httpAllowList"),
                ("http://169.254.169.254/latest/meta-data/", "is not in the app's httpAllowList"),
                // A listed name that resolves to a loopback address.
                ("http://localhost:\(port)/echo", "a loopback address: refused"),
                ("file:///etc/passwd", "must be an http or https URL"),
                ("http://user@127.0.0.1:\(port)/echo", "must be an http or https URL"),
            ]
            for (url, message) in refused {
                let r = try await Self.fetch(c, token, "get", url)
                #expect(r.status == 400 && r.code == "FunctionExecutionError", "\(url): \(r.body)")
                #expect(r.message?.contains(message) == true, "\(url): \(r.message ?? "")")
            }
        }
    }

    @Test func hugeAndSlowAnswersEndTheCall() async throws {
        try await Self.run { c, token, port in
            let huge = try await Self.fetch(c, token, "get", "http://127.0.0.1:\(port)/huge")
            #expect(huge.code == "FunctionExecutionError" && huge.message?.contains("answered more than 1024 KiB") == true, "\(huge.body)")
            // The plugins' deadline (10 s here) bounds the request: the server answers after 30 s.
            let slow = try await Self.fetch(c, token, "get", "http://127.0.0.1:\(port)/slow")
            #expect(slow.status == 400, "\(slow.body)")
            #expect(
                slow.code == "ExecutionTimeLimitExceeded" || slow.message?.contains("did not answer within") == true, "\(slow.body)")
        }
    }

    @Test func addressesAreJudgedByWhatTheyAre() {
        let forbidden = [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1", "224.0.0.1",
            "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "ff02::1",
        ]
        for text in forbidden {
            #expect(IPAddressBytes(text)?.forbiddenKind != nil, "\(text) should be refused")
        }
        for text in ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "93.184.216.34"] {
            #expect(IPAddressBytes(text)?.forbiddenKind == nil, "\(text) is public")
        }
        for text in ["0x7f.1", "127.1", "2130706433", "0177.0.0.1"] {
            #expect(IPAddressBytes(text) == nil, "\(text) is no address literal")
        }
        #expect(IPAddressBytes("169.254.169.254")?.forbiddenKind == "a link-local")
    }

    @Test func theAllowListTakesOnlyOrigins() throws {
        let list = try HTTPAllowList(["https://Hooks.Example.com", "http://127.0.0.1:8080", "http://[::1]:9"], path: "httpAllowList")
        #expect(list.ejson == ["https://hooks.example.com", "http://127.0.0.1:8080", "http://[::1]:9"])
        #expect(list.allows(try #require(OutboundURL("https://hooks.example.com/x"))))
        #expect(!list.allows(try #require(OutboundURL("https://hooks.example.com:8443/x"))))
        for bad in ["hooks.example.com", "ftp://x", "https://x/path", "https://x?q", "https://user@x"] {
            #expect(throws: ConfigError.self, "\(bad)") { try HTTPAllowList([bad], path: "httpAllowList") }
        }
    }
}
