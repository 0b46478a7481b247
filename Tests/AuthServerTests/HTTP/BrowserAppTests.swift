// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Testing

/// A web app of another origin talks to authsh from a real browser (headless Chromium), as
/// realm-web does with `fetch`: with its origin in `allowedRequestOrigins` the page logs in,
/// refreshes, calls a function, reads an error answer and the link request's `X-Baas-Location`;
/// the same page from an origin not listed is refused by the browser.
@Suite(.timeLimit(.minutes(5))) struct BrowserAppTests {
    /// Runs `script` (in Tests/browser) against the live server of `c`: it serves a page on a
    /// port of its own choosing (one picked here and freed could be taken by another test's
    /// server before it binds) and prints it; the app then allows `http://localhost:PORT` and
    /// its `/cb` as `provider`'s redirect, and the script browses. Its JSON report, and the page.
    static func browse(
        _ c: Client, script: String, arguments: [String] = [], provider: String
    ) async throws -> (report: [String: Any], page: String) {
        let authsh = "http://127.0.0.1:\(try #require(c.client.port))"
        let output = Scratch.path(script) + ".json"
        let go = output + ".go"
        defer { for file in [output, go] { try? FileManager.default.removeItem(atPath: file) } }
        let browser = try ChildProcess(
            [Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/browser/\(script).py", authsh]
                + arguments + [go], output: output)
        var port: Int?
        for _ in 0..<600 where port == nil && browser.isRunning {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            port = text.split(separator: "\n").first { $0.hasPrefix("listening ") }.flatMap { Int($0.dropFirst(10)) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let page = "http://localhost:\(try #require(port, "the page's server did not start"))"
        let patch = try await c.call(
            .patch, "\(Routes.dev)/apps/local/config",
            json: [
                "allowedRequestOrigins": [.string(page)],
                "providers": [provider: ["redirectURIs": [.string(page + "/cb")]]],
            ])
        #expect(patch.status == 200, "\(patch.body)")
        #expect(FileManager.default.createFile(atPath: go, contents: Data()))
        return (try await BrowserReport.read(browser, output: output, seconds: 90), page)
    }

    @Test(.timeLimit(.minutes(2))) func aPageOfAnAllowedOriginUsesTheAPIAndAnotherIsRefused() async throws {
        let config = TestServer.withPlugins(PluginDirectory.examples)
        try await TestServer.run(config, mode: .live) { (c: Client) async throws in
            let (report, page) = try await Self.browse(c, script: "cors-browser", provider: "oauth2-github")
            #expect(report["origin"] as? String == page)
            let allowed = try #require(report["allowed"] as? [String: Any], "\(report)")
            #expect(allowed["login"] as? Int == 200, "\(allowed)")
            #expect(allowed["refresh"] as? Int == 201, "\(allowed)")
            let call = allowed["call"] as? [Any]
            #expect(call?.first as? Int == 200 && call?.last as? String == "Hello, Ada!", "\(allowed)")
            let error = allowed["error"] as? [Any]
            #expect(error?.count == 3 && error?[0] as? Int == 404 && error?[1] as? String == "FunctionNotFound", "\(allowed)")
            let link = allowed["link"] as? [Any]
            #expect(link?.first as? Int == 200, "\(allowed)")
            #expect((link?.last as? String)?.contains("/dev/idp/github/login/oauth/authorize?") == true, "X-Baas-Location: \(allowed)")
            // The other origin: the request may reach the server, but the page never sees an answer.
            #expect(report["otherOrigin"] as? String == page.replacingOccurrences(of: "localhost", with: "127.0.0.1"))
            let other = try #require(report["other"] as? [String: Any], "\(report)")
            #expect((other["refused"] as? String)?.contains("Failed to fetch") == true, "\(other)")
        }
    }

    /// A page on another site than the dev server (http://localhost:PORT against
    /// http://127.0.0.1:PORT2) links Google as realm-web does: the link binding's cookie comes
    /// on a cross-site answer, which a browser keeps only as `SameSite=None; Secure` (loopback is
    /// a secure context over http), so the callback finds it and the link is made.
    @Test(.timeLimit(.minutes(2))) func aPageOnAnotherSiteLinksWithOAuth() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { (c: Client) async throws in
            let (report, _) = try await Self.browse(c, script: "link-browser", arguments: ["oauth2-google"], provider: "oauth2-google")
            let start = try #require(report["start"] as? [String: Any], "\(report)")
            #expect(start["status"] as? Int == 200, "\(start)")
            let fragment = try #require(report["fragment"] as? String, "\(report)")
            #expect(fragment.contains("_baas_link=ok") && !fragment.contains("_baas_error"), "\(fragment)")
            let user = try #require(start["login"] as? String)
            #expect(fragment.contains("_baas_ua=") && fragment.contains(user), "\(fragment)")
        }
    }

    /// A Firebase web app of an allowed origin signs up, looks up and refreshes through the
    /// Firebase API with the JavaScript SDK's requests (its headers preflighted), and reads an
    /// error answer; a page of another origin gets nothing.
    @Test(.timeLimit(.minutes(2))) func aFirebaseWebAppUsesTheFirebaseAPI() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { (c: Client) async throws in
            let (report, _) = try await Self.browse(c, script: "firebase-browser", provider: "oauth2-github")
            let allowed = try #require(report["allowed"] as? [String: Any], "\(report)")
            let signUp = try #require(allowed["signUp"] as? [Any], "\(allowed)")
            #expect(signUp.first as? Int == 200 && signUp.last as? String == "web@example.com", "\(allowed)")
            let uid = try #require(signUp[1] as? String)
            #expect((allowed["lookup"] as? [Any])?.last as? String == uid, "\(allowed)")
            #expect((allowed["refresh"] as? [Any])?.first as? Int == 200 && (allowed["refresh"] as? [Any])?.last as? String == uid)
            #expect((allowed["error"] as? [Any])?.first as? Int == 400 && (allowed["error"] as? [Any])?.last as? String == "EMAIL_EXISTS")
            let other = try #require(report["other"] as? [String: Any], "\(report)")
            #expect((other["refused"] as? String)?.contains("Failed to fetch") == true, "\(other)")
        }
    }
}
