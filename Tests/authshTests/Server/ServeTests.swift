// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import Testing

/// `authsh serve`, the real binary: its command line, its one stdout line, its exit codes.
@Suite(.binary, .timeLimit(.minutes(5))) struct ServeTests {
    @Test func configErrorsExit78NamingFileAndKey() async throws {
        let dir = try Binary.temporaryDirectory()
        let file = dir + "/authsh.json"
        try Binary.write(#"{"apps":[{"id":"a","providers":{"anon-user":{"enabeld":true}}}]}"#, to: file)
        let r = try await Binary.run(["serve", "--config", file, "--data", dir, "--port", "0"])
        #expect(r.status == 78)
        #expect(r.stderr.contains("config \(file): apps[0].providers.anon-user.enabeld: unknown key"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let missing = try await Binary.run(["serve", "--config", dir + "/nope.json", "--port", "0"])
        #expect(missing.status == 78 && missing.stderr.contains("nope.json"))
    }

    @Test func badUsageExits64() async throws {
        let r = try await Binary.run(["serve", "--port", "http"])
        #expect(r.status == 64 && r.stderr.contains("--port"))
        #expect(try await Binary.run(["serve", "--frobnicate"]).status == 64)
        #expect(try await Binary.run(["serve", "--public-url", "auth.example.com"]).status == 64)
        #expect(try await Binary.run(["serve", "--metrics-port", "http"]).status == 64)
        let proxy = try await Binary.run(["serve", "--trusted-proxy", "proxy.example.com"])
        #expect(proxy.status == 64 && proxy.stderr.contains("proxy.example.com"), "\(proxy.stderr)")
        // Checked before anything starts: out of range, an unknown level, a remote dev host.
        let port = try await Binary.run(["serve", "--port", "70000"])
        #expect(port.status == 64 && port.stderr.contains("--port needs a number from 0 to 65535"), "\(port.stderr)")
        #expect(try await Binary.run(["serve", "--log-level", "loud"]).status == 64)
        let remote = try await Binary.run(["serve", "--dev", "--host", "0.0.0.0"])
        #expect(remote.status == 64 && remote.stderr.contains("--dev-allow-remote"), "\(remote.stderr)")
        #expect(try await Binary.run(["serve", "migrate", "twice"]).status == 64)
    }

    /// `--help` lists every option with its help, and exits 0 without starting anything.
    @Test func helpListsTheOptions() async throws {
        let r = try await Binary.run(["serve", "--help"])
        #expect(r.status == 0, "\(r.stderr)")
        for option in [
            "--host", "--port", "--config", "--data", "--database", "--plugins", "--dev", "--dev-allow-remote",
            "--public-url", "--log-level", "--log-format", "--metrics-port", "--metrics-host", "--trusted-proxy",
            "--check", "--tls-cert", "--tls-key", "--tls-min-version", "migrate",
        ] {
            #expect(r.stdout.contains(option), "\(option) missing from:\n\(r.stdout)")
        }
        #expect(!r.stdout.split(separator: "\n").contains { $0.hasPrefix("listening on http://") })
    }

    /// `--metrics-port 0`: a second listener, announced on stdout, serving `/metrics` only.
    @Test func metricsOnTheirOwnListener() async throws {
        let directory = try Binary.temporaryDirectory()
        let log = directory + "/serve.log"
        let (process, origin) = try await ServerProcess.spawn(["--data", directory + "/data", "--metrics-port", "0"], log: log)
        defer { process.stop() }
        var metrics: String?
        for _ in 0..<200 where metrics == nil {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            metrics = text.split(separator: "\n").first { $0.hasPrefix("metrics on ") }.map { String($0.dropFirst("metrics on ".count)) }
            if metrics == nil { try await Task.sleep(for: .milliseconds(25)) }
        }
        let url = try #require(metrics, "no 'metrics on' line")
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/metrics") && !url.hasPrefix(origin + "/"))
        let login = try await JSONHTTP(origin: origin).send(
            .POST, "/api/client/v2.0/app/local/auth/providers/anon-user/login",
            json: #"{"provider":"anon-user"}"#)
        #expect(login.status == 200)
        let scrape = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let text = String(buffer: try await scrape.body.collect(upTo: 1 << 20))
        #expect(text.contains(#"authsh_logins_total{provider="anon-user",outcome="success"} 1"#), "\(text)")
    }

    @Test func devModeOnANonLoopbackAddressNeedsToBeAskedFor() async throws {
        let r = try await Binary.run(["serve", "--dev", "--host", "0.0.0.0", "--port", "0", "--data", try Binary.temporaryDirectory()])
        #expect(r.status == 64 && r.stderr.contains("--dev-allow-remote"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func servesWithNoConfigAndStopsOnSIGTERM() async throws {
        let server = try await ServerProcess(["--dev", "--log-level", "info"], examplePlugins: false)
        let dir = server.directory, process = server.process, origin = server.origin
        #expect(origin.hasPrefix("http://127.0.0.1:"))

        let base = origin + "/api/client/v2.0/app/local"
        var request = HTTPClientRequest(url: base + "/auth/providers/local-userpass/register")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(Array(#"{"email":"serve@example.com","password":"hunter22"}"#.utf8))
        let register = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        #expect(register.status.code == 201)
        let outbox = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: origin + "/api/dev/v1/apps/local/outbox"),
            timeout: .seconds(60))
        let text = String(buffer: try await outbox.body.collect(upTo: 1 << 20))
        #expect(text.contains("serve@example.com") && text.contains(origin + "/confirm?token="))

        process.signal(SIGTERM)
        try await process.waitForExit()
        #expect(process.exitStatus == 0)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(out.split(separator: "\n").count == 1, "exactly one line on stdout: \(out)")
        let log = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(log.contains("POST /api/client/v2.0/app/local/auth/providers/local-userpass/register 201"))
        #expect(!log.contains("hunter22") && !log.contains("token="), "the log holds no secret")
        #expect(FileManager.default.fileExists(atPath: dir + "/data/authsh.sqlite"))
    }
}

extension ServeTests {
    /// `--check`: everything a server builds from its configuration, against no real database
    /// and no port: 0 when it could be served (nothing made on disk), 78 naming the problem.
    @Test func checkSaysWhetherTheConfigurationCanBeServed() async throws {
        let dir = try Binary.temporaryDirectory()
        let good = try await Binary.run(["serve", "--check", "--data", dir + "/data", "--plugins", Binary.repository + "/plugins"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.hasPrefix("configuration ok: apps local; plugin functions "), "\(good.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/data"), "--check made the data directory")
        try Binary.write(
            #"{"apps": [{"id": "local", "providers": {"local-userpass": {"runResetFunction": true, "resetFunctionName": "nope"}}}]}"#,
            to: dir + "/bad.json")
        let bad = try await Binary.run(["serve", "--check", "--config", dir + "/bad.json", "--data", dir + "/data"])
        #expect(bad.status == 78, "\(bad.stderr)")
        #expect(bad.stderr.contains("resetFunctionName: no plugin function 'nope'"), "\(bad.stderr)")
        try Binary.write(#"{"apps": ["#, to: dir + "/broken.json")
        let broken = try await Binary.run(["serve", "--check", "--config", dir + "/broken.json"])
        #expect(broken.status == 78 && broken.stderr.contains("invalid JSON"), "\(broken.stderr)")
        #expect(good.stdout.split(separator: "\n").count == 1 && bad.stdout.isEmpty)
    }
}
