// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Testing

/// Sign-ins that finish at the web redirect flow's callback (a GET, or Apple's form post) are
/// audited and counted like the client's own login requests: each login and link once, a
/// failed one as a failure, and the loopback flow's callback as the code it issues.
@Suite(.timeLimit(.minutes(5))) struct OAuthAuditTests {
    @Test func callbackLoginsAndLinksAreAuditedAndCounted() async throws {
        let directory = Scratch.path("oauth-audit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = TestServer.configuration(database: .directory(directory))
        try await MetricsTests.run(config) { c, metrics in
            let patch = try await c.call(
                .patch, "\(Routes.dev)/apps/local/config",
                json: [
                    "providers": ["oauth2-github": ["redirectURIs": ["https://app.example.com/cb"]]]
                ])
            #expect(patch.status == 200, "\(patch.body)")
            let before = try await MetricsTests.scrape(metrics)
            func signIn(_ extra: [(String, String)] = [], token: String? = nil, deny: Bool = false) async throws -> String {
                let start = try await OAuthFlowTests.hop(
                    c, OAuthFlowTests.start([("redirect", "https://app.example.com/cb"), ("state", "s")] + extra),
                    token: token)
                let authorize = try #require(start.location ?? start.baasLocation, "\(start)")
                let callback = try await OAuthFlowTests.approve(c, authorize, email: "flo@example.com", deny: deny)
                return try #require(try await OAuthFlowTests.hop(c, callback).location)
            }
            #expect(try await signIn().contains("_baas_ua="))
            #expect(try await signIn(deny: true).contains("_baas_error="))
            let anonymous = try #require(try await c.anonymous()["access_token"])
            #expect(try await signIn([("link", "true")], token: anonymous).contains("_baas_error="))  // flo is a user already
            let second = try #require(try await c.anonymous()["access_token"])
            let start = try await OAuthFlowTests.hop(
                c,
                OAuthFlowTests.start([
                    ("redirect", "https://app.example.com/cb"), ("state", "s"),
                    ("link", "true"),
                ]), token: second)
            let linked = try await OAuthFlowTests.approve(c, try #require(start.location), email: "lin@example.com")
            #expect(try await OAuthFlowTests.hop(c, linked).location?.contains("_baas_link=ok") == true)
            let loopback = try await OAuthFlowTests.hop(
                c,
                OAuthFlowTests.start([
                    ("redirect", "http://127.0.0.1:9/cb"), ("state", "s"), ("code_challenge", DevIdP.pkce().challenge),
                    ("code_challenge_method", "S256"),
                ]))
            let coded = try await OAuthFlowTests.approve(c, try #require(loopback.location), email: "flo@example.com")
            #expect(try await OAuthFlowTests.hop(c, coded).location?.contains("code=") == true)

            let after = try await MetricsTests.scrape(metrics)
            func delta(_ outcome: String) -> Double {
                let labels = ["provider": "oauth2-github", "outcome": outcome]
                return after.sum("authsh_logins_total", labels) - before.sum("authsh_logins_total", labels)
            }
            #expect(delta("success") == 1 && delta("failure") == 1, "logins: \(delta("success")) ok, \(delta("failure")) failed")
        }
        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let events = try await store.auditEvents(AuditFilter(limit: 1000)).filter { $0.provider == "oauth2-github" }
        func rows(_ event: String, _ outcome: String) -> [AuditEvent] { events.filter { $0.event == event && $0.outcome == outcome } }
        #expect(rows("login", "success").count == 1 && rows("login", "success").first?.userId != nil, "\(events)")
        #expect(rows("login", "failure").count == 1 && rows("login", "failure").first?.detail == "AuthError", "\(events)")
        #expect(rows("link", "success").count == 1 && rows("link", "failure").count == 1, "\(events)")
        #expect(rows("login_code", "success").count == 1, "\(events)")
        #expect(events.allSatisfy { $0.appId == "local" && $0.address == "127.0.0.1" }, "\(events)")
    }
}
