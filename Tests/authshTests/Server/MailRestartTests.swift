// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// A mail queued when `authsh serve` is killed (SIGKILL) is delivered, once, by the server
/// started again on the same database: the queue is in the database, not the process.
@Suite(.binary, .timeLimit(.minutes(5))) struct MailRestartTests {
    /// `Tests/smtp/smtp_sink.py` (aiosmtpd) on `port`, writing what it accepts to `directory`.
    static func startSink(port: Int, directory: String, stall: Int = 0) throws -> ChildProcess {
        try ChildProcess(
            [
                Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/smtp/smtp_sink.py",
                "--dir", directory, "--port", String(port), "--stall", String(stall),
            ], output: directory + "/../sink.log")
    }

    /// The messages `directory` holds (the sink's N.json files), as their raw text.
    static func received(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
            .map { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
    }

    /// Starts the sink on a reserved port and waits until it listens (its log says so).
    static func startSink(on reservation: LoopbackSocket, directory: String, stall: Int = 0) async throws -> ChildProcess {
        let sink = try startSink(port: reservation.port, directory: directory, stall: stall)
        let log = directory + "/../sink.log"
        for _ in 0..<400 {
            if ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("listening \(reservation.port)") {
                reservation.close()
                return sink
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        sink.stop()
        throw TerminalError(message: "the SMTP sink did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// A directory with a mailbox, a port held for the SMTP server, and `authsh serve`
    /// arguments for a server (on a SQLite file there) that mails to that port with these timeouts.
    static func mailSetup(connectTimeout: Int, commandTimeout: Int) throws -> (
        directory: String, mailbox: String, port: LoopbackSocket, arguments: [String]
    ) {
        let directory = try Binary.temporaryDirectory()
        let mailbox = directory + "/mail"
        try FileManager.default.createDirectory(atPath: mailbox, withIntermediateDirectories: true)
        let port = try LoopbackSocket(shared: true)
        let config = directory + "/config.json"
        try Data(
            #"""
            {"apps": [{"id": "local", "rateLimits": {"enabled": false}}],
             "mail": {"host": "127.0.0.1", "port": \#(port.port), "security": "none", "from": "no-reply@example.com",
                      "retryDelaysSeconds": [1], "connectTimeoutSeconds": \#(connectTimeout), "commandTimeoutSeconds": \#(commandTimeout)}}
            """#.utf8
        ).write(to: URL(fileURLWithPath: config))
        return (directory, mailbox, port, ["--config", config, "--database", "sqlite:" + directory + "/authsh.sqlite"])
    }

    @Test func aMailQueuedWhenTheServerIsKilledIsDeliveredAfterItStartsAgain() async throws {
        let (directory, mailbox, port, arguments) = try Self.mailSetup(connectTimeout: 2, commandTimeout: 5)

        // The SMTP server is down: the mail waits in the queue when the server is killed.
        let first = try await ServerProcess.spawn(arguments + ["--metrics-port", "0"], log: directory + "/first.log")
        let register = try await JSONHTTP(origin: first.origin).send(
            .POST, "/api/client/v2.0/app/local/auth/providers/local-userpass/register",
            json: #"{"email":"kim@example.com","password":"password1"}"#)
        #expect(register.status == 201, "\(register.text)")
        // Killed once attempts have failed and the mail waits for its retry; meanwhile the sender
        // reads the queue when it wakes, not in a loop (it once wrote ~40,000 times a second).
        try await Self.waitForMetric("authsh_mail_deliveries_total", ["outcome": "retried"], log: directory + "/first.log") { $0 >= 2 }
        try await Self.waitForMetric("authsh_db_operations_total", ["kind": "write"], log: directory + "/first.log", timeout: .seconds(1)) {
            $0 < 200
        }
        first.process.stop()

        let sink = try await Self.startSink(on: port, directory: mailbox)
        defer { sink.stop() }
        let second = try await ServerProcess.spawn(arguments + ["--metrics-port", "0"], log: directory + "/second.log")
        defer { second.process.stop() }
        // Within a few seconds, unless the kill fell inside an attempt: then its lease (52 s
        // here) runs out first.
        var delivered: [String] = []
        for _ in 0..<1800 where delivered.isEmpty {
            delivered = try FileManager.default.contentsOfDirectory(atPath: mailbox).filter { $0.hasSuffix(".json") }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(delivered.count == 1, "delivered after the restart")
        // Once nothing is queued, nothing more can be sent.
        try await Self.waitForMetric("authsh_mail_queue_depth", log: directory + "/second.log") { $0 == 0 }
        #expect(try FileManager.default.contentsOfDirectory(atPath: mailbox).filter { $0.hasSuffix(".json") }.count == 1, "once")
        let text = try String(contentsOfFile: mailbox + "/1.json", encoding: .utf8)
        #expect(text.contains("kim@example.com"))
    }

    /// Killed while the SMTP server holds its DATA (the content sent, the answer not yet
    /// back): the next process sends it again once the lease runs out. A receiver that kept the
    /// interrupted copy has two, with one `Message-ID` (the bound the queue promises: at most
    /// one duplicate per crash, and a receiver can tell).
    @Test func aMailWhoseDeliveryTheKillInterruptedIsSentAgainAfterTheRestart() async throws {
        // A lease of 1 + 8 x 2 + 10 = 27 s.
        let (directory, mailbox, port, arguments) = try Self.mailSetup(connectTimeout: 1, commandTimeout: 2)
        let sink = try await Self.startSink(on: port, directory: mailbox, stall: 30)
        defer { sink.stop() }

        let first = try await ServerProcess.spawn(arguments, log: directory + "/first.log")
        let register = try await JSONHTTP(origin: first.origin).send(
            .POST, "/api/client/v2.0/app/local/auth/providers/local-userpass/register",
            json: #"{"email":"lee@example.com","password":"password1"}"#)
        #expect(register.status == 201, "\(register.text)")
        // Killed as soon as the SMTP server holds the DATA (well inside the 2 s the client waits).
        var stalled = false
        for _ in 0..<500 where !stalled {
            stalled = FileManager.default.fileExists(atPath: mailbox + "/stalled")
            if !stalled { try await Task.sleep(for: .milliseconds(10)) }
        }
        first.process.stop()
        #expect(stalled, "the delivery never reached DATA")

        let second = try await ServerProcess.spawn(arguments + ["--metrics-port", "0"], log: directory + "/second.log")
        defer { second.process.stop() }
        var delivered: [String] = []
        for _ in 0..<900 where delivered.isEmpty {
            delivered = try Self.received(mailbox)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!delivered.isEmpty, "delivered after the restart")
        // Once nothing is queued, nothing more can be sent.
        try await Self.waitForMetric("authsh_mail_queue_depth", log: directory + "/second.log") { $0 == 0 }
        delivered = try Self.received(mailbox)
        #expect((1...2).contains(delivered.count), "at most one duplicate: \(delivered.count)")
        let ids = Set(
            delivered.map { text in
                text.components(separatedBy: "\\r\\n").first { $0.lowercased().hasPrefix("message-id:") } ?? "none"
            })
        #expect(ids.count == 1 && !ids.contains("none"), "one Message-ID: \(ids)")
        #expect(delivered.allSatisfy { $0.contains("lee@example.com") })
    }

    /// Waits until the `/metrics` of the server that writes `log` (started with
    /// `--metrics-port 0`) shows the samples `name` with `labels` at a sum `accepts` takes.
    static func waitForMetric(
        _ name: String, _ labels: [String: String] = [:], log: String, timeout: Duration = .seconds(120),
        _ accepts: @escaping (Double) -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var last = ""
        while clock.now < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let url = text.split(separator: "\n").first(where: { $0.hasPrefix("metrics on ") })?.dropFirst("metrics on ".count),
                let origin = url.firstRange(of: "/metrics").map({ String(url[..<$0.lowerBound]) })
            {
                last = (try? await JSONHTTP(origin: origin).send(.GET, "/metrics").text) ?? ""
                if let scrape = try? PrometheusText(last), scrape.has(name, labels), accepts(scrape.sum(name, labels)) { return }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no \(name) as wanted in the metrics within \(timeout): \(last)")
    }

}
