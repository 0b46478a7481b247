// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Testing

/// Passkeys in a real browser: the dev server's example page registers and uses a passkey with
/// `navigator.credentials` in headless Chromium, whose virtual authenticator (DevTools
/// protocol: CTAP2, resident keys, user verification) plays the phone; and that authenticator
/// and authsh's software authenticator are interchangeable against the same server: each logs
/// in with a credential the other made.
@Suite(.timeLimit(.minutes(5))) struct PasskeyBrowserTests {
    /// Runs the browser script with `arguments`; its one-line JSON report.
    static func browse(_ arguments: [String]) async throws -> [String: Any] {
        let output = Scratch.path("passkey-browser") + ".json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let browser = try ChildProcess(
            [Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/browser/passkey-browser.py"] + arguments,
            output: output)
        return try await BrowserReport.read(browser, output: output)
    }

    static func body(_ report: [String: Any], _ key: String) -> [String: Any] {
        (report[key] as? [String: Any])?["body"] as? [String: Any] ?? [:]
    }

    static func status(_ report: [String: Any], _ key: String) -> Int? { (report[key] as? [String: Any])?["status"] as? Int }

    @Test(.timeLimit(.minutes(3))) func theBrowsersAuthenticatorAndTheSoftwareOneAreInterchangeable() async throws {
        try await TestServer.run(TestServer.configuration(dev: true), mode: .live) { (c: Client) async throws in
            let origin = "http://localhost:\(try #require(c.client.port))"

            // The page signs up and signs in, in the browser.
            let registered = try await Self.browse([origin, "register"])
            #expect(registered["origin"] as? String == origin)
            #expect(Self.status(registered, "signUp") == 201, "\(registered)")
            #expect(Self.status(registered, "signIn") == 200, "\(registered)")
            let userId = try #require(Self.body(registered, "signUp")["user_id"] as? String)
            #expect(Self.body(registered, "signIn")["user_id"] as? String == userId)
            #expect(Self.body(registered, "signIn")["access_token"] != nil)

            // The software authenticator, holding the browser's credential, logs in as that user.
            let made = try #require((registered["credentials"] as? [[String: Any]])?.first, "\(registered)")
            func bytes(_ key: String) throws -> [UInt8] { try #require((made[key] as? String).flatMap(Base64.decode), "\(key)") }
            let credential = SoftwareAuthenticator.Credential(
                id: try bytes("credentialId"), rpId: try #require(made["rpId"] as? String), userHandle: try bytes("userHandle"),
                userName: "", privateKey: try bytes("privateKey"), signCount: UInt32(try #require(made["signCount"] as? Int)))
            let software = SoftwareAuthenticator(origin: origin, credentials: [credential])
            let options = try await c.call(.post, c.appRoute + "/auth/providers/passkey/options")
            let login = try await c.login("passkey", ["credential": try software.get(try #require(options.body["publicKey"]))])
            #expect(login.status == 200 && login["user_id"] == userId, "\(login.body)")

            // And the other way: a passkey the software authenticator registered signs in in the browser.
            let access = try #require(try await c.anonymous()["access_token"])
            let other = SoftwareAuthenticator(origin: origin)
            #expect(try await PasskeyTests.register(c, other, access: access, name: "ci").status == 201)
            let owner = try #require(try await c.profile(access).body["user_id"]?.stringValue)
            let file = Scratch.path("passkey-credentials") + ".json"
            defer { try? FileManager.default.removeItem(atPath: file) }
            #expect(FileManager.default.createFile(atPath: file, contents: Data(other.exported.encoded(.relaxed))))
            let signedIn = try await Self.browse([origin, "signin", file])
            #expect(Self.status(signedIn, "signIn") == 200, "\(signedIn)")
            #expect(Self.body(signedIn, "signIn")["user_id"] as? String == owner)
        }
    }

    @Test func thePageIsDevModesOnlyAndAllowsNoInlineScript() async throws {
        try await TestServer.run(TestServer.configuration(dev: true)) { c in
            let page = try await c.client.execute(uri: "/dev/passkeys/local", method: .get) { $0 }
            #expect(page.status.code == 200)
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            let body = String(buffer: page.body)
            #expect(body.contains("data-app=\"local\"") && body.contains("<script src=\"/dev/passkeys/passkeys.js\"></script>"))
            let missing = try await c.client.execute(uri: "/dev/passkeys/nope", method: .get) { $0 }
            #expect(missing.status.code == 404)
        }
        try await TestServer.run(TestServer.configuration(dev: false)) { c in
            let page = try await c.client.execute(uri: "/dev/passkeys/local", method: .get) { $0 }
            #expect(page.status.code == 404)
        }
    }
}
