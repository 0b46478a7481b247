// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// The Auth emulator's sign-in pages for Firebase's popup and redirect flows: in Chromium, the
/// picker makes an account in a popup and hands its event to the SDK's iframe, lists it for a
/// redirect and hands that event over too, and each event's `urlResponse` signs in through
/// `signInWithIdp` as `requestUri`; through HTTP, what the pages refuse, and that they exist in
/// dev mode only.
@Suite(.timeLimit(.minutes(5))) struct FirebaseAuthHandlerTests {
    /// A page's status, headers and text (not JSON: ``Client/call`` is for the API).
    static func page(_ c: Client, _ path: String) async throws -> (status: Int, headers: HTTPFields, text: String) {
        try await c.client.execute(uri: path, method: .get, headers: [:], body: nil) { response in
            (Int(response.status.code), response.headers, String(buffer: response.body))
        }
    }

    @Test(.timeLimit(.minutes(2))) func aPopupAndARedirectSignInThroughTheEmulatorPages() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { (c: Client) async throws in
            let (report, _) = try await BrowserAppTests.browse(c, script: "firebase-popup-browser", provider: "oauth2-google")
            let authsh = "http://127.0.0.1:\(try #require(c.client.port))"
            #expect(report["popupTitle"] as? String == "Sign in with google.com" && report["popupError"] as? String == "", "\(report)")
            let popup = try #require(report["popupEvent"] as? [String: Any], "\(report)")
            #expect(popup["type"] as? String == "signInViaPopup" && popup["eventId"] as? String == "1234567890", "\(popup)")
            let response = try #require(popup["urlResponse"] as? String)
            #expect(response.hasPrefix(authsh + "/emulator/auth/handler?providerId=google.com&id_token=%7B"), "\(response)")
            let first = try #require(report["popupSignIn"] as? [String: Any], "\(report)")
            #expect(first["email"] as? String == "pop@example.com" && first["displayName"] as? String == "Pop Up", "\(first)")
            #expect(first["providerId"] as? String == "google.com" && first["isNewUser"] as? Bool == true, "\(first)")

            let listed = try #require(report["listed"] as? [String], "\(report)")
            #expect(listed.contains { $0.contains("Pop Up") && $0.contains("pop@example.com") }, "\(listed)")
            let redirect = try #require(report["redirectEvent"] as? [String: Any], "\(report)")
            #expect(redirect["type"] as? String == "signInViaRedirect", "\(redirect)")
            let again = try #require(report["redirectSignIn"] as? [String: Any], "\(report)")
            #expect(again["localId"] as? String == first["localId"] as? String && again["isNewUser"] as? Bool == false, "\(again)")

            let hostile = try #require(report["hostile"] as? [String], "\(report)")
            #expect(hostile[0] != "owned" && hostile[1].contains("http or https") && hostile[2] == "/emulator/auth/handler", "\(hostile)")
        }
    }

    @Test func thePagesRefuseWhatTheyCannotServe() async throws {
        try await TestServer.run { c in
            let missing = try await c.call(.get, "/emulator/auth/handler?apiKey=k")
            #expect(missing.status == 400 && "\(missing.body)".contains("missing apiKey or providerId"), "\(missing.body)")
            let unknown = try await c.call(.get, "/emulator/auth/handler?apiKey=k&providerId=example.com&appName=a")
            #expect(unknown.status == 400 && "\(unknown.body)".contains("no identity provider"), "\(unknown.body)")
            let page = try await Self.page(c, "/emulator/auth/handler?apiKey=k&providerId=github.com&appName=a")
            #expect(page.status == 200 && page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(page.text.contains("Sign in with github.com") && !page.text.contains("<script>"), "\(page.text)")
            let iframe = try await Self.page(c, "/emulator/auth/iframe")
            #expect(iframe.headers[.contentSecurityPolicy]?.contains("script-src 'self' https://apis.google.com") == true)

            // signInWithIdp's requestUri: an absolute http(s) URL with the provider's token; a
            // bare authorization code is not exchanged.
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": "not a url", "returnSecureToken": true]), 400,
                "INVALID_REQUEST_URI")
            FirebaseAPITests.expectError(
                try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": "http://localhost/cb?code=abc&state=x"]), 400,
                "INVALID_IDP_RESPONSE")
            let claims = #"{"sub":"frag-1","email":"frag@example.com","email_verified":true}"#
            let fragment = "http://localhost/cb#providerId=github.com&id_token=" + FormEncoding.escape(claims)
            let signedIn = try await FirebaseAPITests.call(c, "signInWithIdp", ["requestUri": .string(fragment)])
            #expect(signedIn.status == 200 && signedIn["email"] == "frag@example.com", "\(signedIn.body)")
        }
    }

    /// A rebound DNS name must not read the accounts; production serves no such page.
    @Test func onlyLoopbackHostsInDevMode() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { (c: Client) async throws in
            let port = try #require(c.client.port)
            for (host, status) in [("rebound.example.com:\(port)", "HTTP/1.1 403"), ("127.0.0.1:\(port)", "HTTP/1.1 200")] {
                let answer = try await RawHTTP.exchange(
                    port: port,
                    "GET /emulator/auth/handler?apiKey=k&providerId=github.com&appName=a HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                #expect(answer.hasPrefix(status), "\(host): \(answer.prefix(200))")
            }
        }
        try await TestServer.run(FirebaseAPITests.production()) { (c: Client) async throws in
            #expect(try await Self.page(c, "/emulator/auth/handler?apiKey=k&providerId=github.com").status == 404)
            #expect(try await Self.page(c, "/emulator/auth/iframe").status == 404)
        }
    }
}
