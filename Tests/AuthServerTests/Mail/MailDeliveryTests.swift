// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import GRDB
import Testing

/// Mail from a server (not in dev mode) to a real SMTP server (aiosmtpd) through the queue:
/// what arrives, and what the queue keeps after temporary and permanent refusals and while
/// the SMTP server is down.
@Suite(.timeLimit(.minutes(5))) struct MailDeliveryTests {
    /// A server on a SQLite file whose mail goes to `sink`, tried again after 1 s.
    static func run(
        _ sink: SMTPSink?, port: Int? = nil, plugins: [String: String] = [:],
        _ body: @escaping @Sendable (Client, String) async throws -> Void
    ) async throws {
        let directory = Scratch.path("mail")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pluginDirectory = try PluginDirectory(plugins)
        var config = TestServer.configuration(database: .directory(directory), dev: false, plugins: pluginDirectory.path)
        var mail = MailConfiguration(host: "127.0.0.1", port: port ?? sink?.port ?? 0, security: .none, from: "Example Auth <no-reply@example.com>")
        mail.retryDelaysSeconds = [1]
        mail.commandTimeoutSeconds = 10
        config.mail = mail
        config.apps[0].providers.userpass?.emailConfirmationUrl = "https://app.example.com/confirm"
        config.apps[0].rateLimits.enabled = false
        try await TestServer.run(config) { c in try await body(c, directory + "/authsh.sqlite") }
    }

    /// The queue's rows: state, attempts, content, last error.
    static func queue(_ database: String) throws -> [(state: String, attempts: Int, content: String, error: String?)] {
        let db = try DatabaseQueue(path: database)
        return try db.read { db in
            try Row.fetchAll(db, sql: "SELECT state, attempts, content, last_error FROM mail_queue ORDER BY created_at, id").map {
                ($0["state"], $0["attempts"], $0["content"], $0["last_error"])
            }
        }
    }

    /// Polls the queue until `done` holds (at most 90 s: a bound for a failing test).
    static func queue(_ database: String, until done: ([(state: String, attempts: Int, content: String, error: String?)]) -> Bool) async throws
        -> [(state: String, attempts: Int, content: String, error: String?)]
    {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let rows = try queue(database)
            if done(rows) { return rows }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try queue(database)
    }

    /// Dev mode with `mail`: delivered by SMTP, and the dev outbox still records it.
    @Test func devModeWithSMTPKeepsTheOutbox() async throws {
        let sink = try SMTPSink()
        var config = TestServer.configuration(dev: true)
        config.mail = MailConfiguration(host: "127.0.0.1", port: sink.port, security: .none, from: "no-reply@example.com")
        config.apps[0].rateLimits.enabled = false
        try await TestServer.run(config) { c in
            #expect(try await c.userpass("register", ["email": "dev@example.com", "password": "Secret-Pass-1"]).status == 201)
            let kept = try await c.outbox("dev@example.com", kind: "confirm")
            #expect(kept.count == 1)
            let mail = try #require(try await sink.waitFor(1).first)
            #expect(mail.to == ["dev@example.com"])
            let token = try #require(kept.first?["token"]?.stringValue)
            #expect(ParsedMail(mail.data).parts["text/plain"]?.contains(token) == true, "the outbox's token is the mail's")
        }
    }

    @Test func aConfirmationMailArrivesAndItsLinkConfirms() async throws {
        let sink = try SMTPSink()
        try await Self.run(sink) { c, database in
            let register = try await c.userpass("register", ["email": "ann@example.com", "password": "Secret-Pass-1"])
            #expect(register.status == 201, "\(register.body)")
            let mail = try #require(try await sink.waitFor(1).first)
            #expect(mail.from == "no-reply@example.com" && mail.to == ["ann@example.com"])
            let parsed = ParsedMail(mail.data)
            #expect(parsed.linesAreShortAnd7Bit)
            #expect(parsed.header("Subject") == "Confirm your account" && parsed.header("To") == "ann@example.com")
            #expect(parsed.header("Message-ID")?.hasSuffix("@example.com>") == true && parsed.header("Date") != nil)
            let text = try #require(parsed.parts["text/plain"])
            let html = try #require(parsed.parts["text/html"])
            let link = try #require(text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("https://app.example.com/confirm?") })
            #expect(html.contains("href=\"\(link.replacingOccurrences(of: "&", with: "&amp;"))\""))
            #expect(!mail.data.contains("Secret-Pass-1"), "no secret but the token")
            let fields = try #require(FormEncoding.decode(link.split(separator: "?", maxSplits: 1)[1]))
            let confirm = try await c.userpass(
                "confirm",
                [
                    "token": .string(try #require(FormEncoding.value("token", in: fields))),
                    "tokenId": .string(try #require(FormEncoding.value("tokenId", in: fields))),
                ])
            #expect(confirm.status == 200, "\(confirm.body)")
            #expect(try await c.emailLogin("ann@example.com", "Secret-Pass-1").status == 200)

            // Delivered: the queue keeps the record, not the content (which held the token).
            let rows = try await Self.queue(database) { $0.first?.state == "sent" }
            #expect(rows.count == 1 && rows[0].state == "sent" && rows[0].attempts == 1 && rows[0].content.isEmpty)
        }
    }

    @Test func temporaryRefusalsAreTriedAgainAndAPermanentOneIsGivenUp() async throws {
        let flaky = try SMTPSink(fail: ["421", "451"])
        try await Self.run(flaky) { c, database in
            #expect(try await c.userpass("register", ["email": "bo@example.com", "password": "password1"]).status == 201)
            let received = try await flaky.waitFor(1)
            #expect(received.count == 1)
            let rows = try await Self.queue(database) { $0.first?.state == "sent" }
            #expect(rows.first?.state == "sent" && rows.first?.attempts == 3, "\(rows)")
            // The queue is done with it: nothing more will be sent.
            #expect(try flaky.received().count == 1, "delivered once")
        }
        let refusing = try SMTPSink(fail: ["550+"])
        try await Self.run(refusing) { c, database in
            #expect(try await c.userpass("register", ["email": "cy@example.com", "password": "password1"]).status == 201)
            let rows = try await Self.queue(database) { $0.first?.state == "failed" }
            #expect(rows.first?.state == "failed" && rows.first?.attempts == 1 && rows.first?.content.isEmpty == true, "\(rows)")
            #expect(rows.first?.error?.hasPrefix("DATA (message): 550") == true, "the reason is kept: \(rows)")
        }
    }

    @Test func mailWaitsWhileTheSMTPServerIsDown() async throws {
        // The port is held (bound, not listening) while the server is "down": connections to it
        // are refused, and no other process can take it meanwhile and answer in its place.
        let down = try RawHTTP.reserve()
        let port = down.port
        let directory = Scratch.path("smtp")
        try await Self.run(
            nil, port: port,
            plugins: [
                "notify.lua": #"""
                return function(to) context.email.send{to = to, subject = "Plugin mail", body = "Hello from a plugin"}; return true end
                """#
            ]
        ) { c, database in
            #expect(try await c.userpass("register", ["email": "di@example.com", "password": "password1"]).status == 201)
            // A plugin's mail takes the same way.
            let anonymous = try await c.login("anon-user", [:])
            let sent = try await c.function("notify", ["ed@example.com"], token: try #require(anonymous["access_token"]))
            #expect(sent.status == 200, "\(sent.body)")
            let waiting = try await Self.queue(database) { $0.count == 2 && $0.allSatisfy { $0.attempts >= 2 } }
            #expect(waiting.allSatisfy { $0.state == "queued" && $0.error?.hasPrefix("cannot connect") == true }, "\(waiting)")
            down.close()
            let again = try SMTPSink(port: port, directory: directory)
            let received = try await again.waitFor(2)
            #expect(Set(received.flatMap(\.to)) == ["di@example.com", "ed@example.com"])
            #expect(ParsedMail(try #require(received.first { $0.to == ["ed@example.com"] }).data).parts["text/plain"] == "Hello from a plugin")
            // Both sent: the queue sends nothing more.
            _ = try await Self.queue(database) { $0.count == 2 && $0.allSatisfy { $0.state == "sent" } }
            #expect(try again.received().count == 2, "each delivered once")
        }
    }
}
