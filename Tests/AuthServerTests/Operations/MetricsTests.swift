// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// `/metrics` on its own listener, scraped by a plain HTTP client: the counters move with the
/// requests made, and no label takes a value a client chose.
@Suite(.timeLimit(.minutes(5))) struct MetricsTests {
    /// Runs a live server with a metrics listener; `body` gets the API client and the
    /// metrics URL.
    static func run(_ configuration: ServerConfiguration, _ body: @escaping @Sendable (Client, String) async throws -> Void) async throws {
        var configuration = configuration
        configuration.metricsPort = 0
        let metricsURL = Mutex<String?>(nil)
        let app = try await buildApplication(
            configuration,
            onMetricsListening: { host, port in
                metricsURL.withLock { $0 = "http://\(host):\(port)/metrics" }
            })
        try await app.test(.live) { client in
            var url: String?
            for _ in 0..<200 where url == nil {
                url = metricsURL.withLock { $0 }
                if url == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            try await body(Client(client: client), try #require(url, "the metrics listener never listened"))
        }
    }

    /// One scrape: status 200, the text format's content type, parsed.
    static func scrape(_ url: String) async throws -> PrometheusText {
        let answer = try await get(url)
        #expect(answer.status == 200)
        #expect(answer.contentType == "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusText(answer.text)
    }

    static func get(_ url: String) async throws -> (status: Int, contentType: String?, text: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 4 << 20)
        return (Int(response.status.code), response.headers.first(name: "content-type"), String(buffer: body))
    }

    @Test func countersMoveWithTheRequestsMade() async throws {
        let directory = Scratch.path("metrics")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plugins = try PluginDirectory([
            "spin.lua": "return function() while true do end end",
            "echo.lua": "return function(x) return x end",
        ])
        var config = TestServer.configuration(database: .directory(directory), plugins: plugins.path)
        config.pluginTimeLimit = .milliseconds(200)
        config.apps[0].rateLimits.enabled = false
        try await Self.run(config) { c, url in
            let before = try await Self.scrape(url)
            #expect(before.sum("authsh_db_pool_connections") >= 3, "readers plus the writer of a SQLite file")

            let anon = try await c.anonymous()
            #expect(try await c.anonymous().status == 200)
            try await c.registerConfirmed("met@example.com", "Pass-word-1")
            #expect(try await c.emailLogin("met@example.com", "wrong-one").status == 401)
            // A provider no app has, named by the client: counted as `unknown`, its name nowhere.
            let odd = try await c.login("zzz-chosen-by-client", ["provider": "zzz-chosen-by-client"])
            #expect(odd.status >= 400)
            let access = try #require(anon["access_token"])
            #expect(try await c.function("echo", [1], token: access).status == 200)
            #expect(try await c.function("spin", token: access).status == 400)
            #expect(try await c.call(.get, "/no/such/route/zzz-path-chosen-by-client").status == 404)

            let after = try await Self.scrape(url)
            #expect(after.types["authsh_http_requests_total"] == "counter")
            #expect(after.types["authsh_http_request_duration_seconds"] == "histogram")
            #expect(after.types["authsh_mail_queue_depth"] == "gauge")
            func delta(_ name: String, _ labels: [String: String]) -> Double { after.sum(name, labels) - before.sum(name, labels) }
            #expect(delta("authsh_logins_total", ["provider": "anon-user", "outcome": "success"]) == 2)
            #expect(delta("authsh_logins_total", ["provider": "local-userpass", "outcome": "failure"]) == 1)
            #expect(delta("authsh_logins_total", ["provider": "unknown", "outcome": "failure"]) == 1)
            #expect(delta("authsh_auth_events_total", ["event": "register", "outcome": "success"]) == 1)
            #expect(delta("authsh_auth_events_total", ["event": "password_failed", "outcome": "failure"]) == 1)
            #expect(delta("authsh_auth_events_total", ["event": "plugin_killed", "outcome": "failure"]) == 1)
            #expect(delta("authsh_plugin_calls_total", ["outcome": "ok"]) == 1)
            #expect(delta("authsh_plugin_calls_total", ["outcome": "killed_time"]) == 1)
            #expect(delta("authsh_mail_deliveries_total", ["outcome": "sent"]) == 1, "the confirmation, to the dev outbox")
            #expect(after.has("authsh_mail_queue_depth"))
            #expect(delta("authsh_db_operations_total", ["kind": "write"]) >= 5)
            #expect(delta("authsh_db_operations_total", ["kind": "read"]) >= 5)
            // One request at a time: no write waits for another, so each commits alone.
            #expect(delta("authsh_db_commits_total", [:]) >= 5)
            #expect(delta("authsh_db_commits_total", [:]) <= delta("authsh_db_operations_total", ["kind": "write"]))

            // Requests by route pattern: the two anonymous logins are one series with the others
            // of the login route; the unmatched path is `NotFound`.
            let loginRoutes = Set(
                after.samples.filter { $0.name == "authsh_http_requests_total" && $0.labels["route"]?.hasSuffix("/login") == true }
                    .compactMap { $0.labels["route"] })
            #expect(loginRoutes.count == 1, "one pattern for every provider and app: \(loginRoutes)")
            let loginRoute = try #require(loginRoutes.first)
            #expect(delta("authsh_http_requests_total", ["route": loginRoute, "method": "POST", "status": "200"]) == 2)
            #expect(delta("authsh_http_requests_total", ["route": loginRoute, "method": "POST", "status": "401"]) == 1)
            #expect(delta("authsh_http_request_duration_seconds_count", ["route": loginRoute, "method": "POST"]) == 4)
            #expect(delta("authsh_http_requests_total", ["route": "NotFound", "status": "404"]) == 1)

            let text = try await Self.get(url).text
            #expect(!text.contains("zzz-"), "a label took a value the client chose")
            #expect(!text.contains("met@example.com") && !text.contains(access))

            // The listener serves `/metrics` and nothing else; the API does not serve it.
            let base = String(url.dropLast("/metrics".count))
            #expect(try await Self.get(base + "/healthz").status == 404)
            #expect(try await Self.get(base + "/metrics?x=1").status == 200)
            #expect(try await c.call(.get, "/metrics").status == 404)
        }
    }

    /// Mail that cannot be delivered yet: the queue's depth and the retries show it.
    @Test func theMailQueueShowsDeliveriesThatWait() async throws {
        let directory = Scratch.path("metrics")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = TestServer.configuration(database: .directory(directory), dev: false)
        // Nothing listens on port 1 of loopback: every attempt is refused, a temporary failure.
        var mail = MailConfiguration(host: "127.0.0.1", port: 1, security: .none, from: "no-reply@example.com")
        mail.retryDelaysSeconds = [1]
        config.mail = mail
        config.apps[0].rateLimits.enabled = false
        try await Self.run(config) { c, url in
            #expect(try await c.userpass("register", ["email": "q1@example.com", "password": "Pass-word-1"]).status == 201)
            #expect(try await c.userpass("register", ["email": "q2@example.com", "password": "Pass-word-1"]).status == 201)
            var scrape = try await Self.scrape(url)
            for _ in 0..<100 where scrape.sum("authsh_mail_deliveries_total", ["outcome": "retried"]) < 2 {
                try await Task.sleep(for: .milliseconds(100))
                scrape = try await Self.scrape(url)
            }
            #expect(scrape.sum("authsh_mail_deliveries_total", ["outcome": "retried"]) >= 2)
            #expect(scrape.sum("authsh_mail_deliveries_total", ["outcome": "sent"]) == 0)
            #expect(scrape.sum("authsh_mail_queue_depth") == 2)
        }
    }

    @Test func offUnlessAPortIsGiven() async throws {
        try await TestServer.run(TestServer.configuration()) { c in
            let reply = try await c.call(.get, "/metrics")
            #expect(reply.status == 404)
        }
    }
}
