// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// A real SMTP server for the tests: aiosmtpd (installed by scripts/setup into `.build/venv`),
/// run by `Tests/smtp/smtp_sink.py` on a loopback port; what it accepts lands in a directory.
final class SMTPSink: @unchecked Sendable {
    // @unchecked: `process` and the paths are set in init and only read after.
    let directory: String
    let port: Int
    private let process: ChildProcess

    /// One message it accepted.
    struct Received {
        var from: String
        var to: [String]
        var data: String
        var tls: Bool
        var auth: Bool
    }

    /// Starts it: `starttls` offers (and requires) STARTTLS with a self-signed certificate for
    /// `localhost` (``certificate`` is its PEM), `auth` requires that user and password,
    /// `fail` answers DATA with those codes first (`550+`: always).
    init(starttls: Bool = false, auth: (String, String)? = nil, fail: [String] = [], port: Int? = nil, directory: String? = nil) throws {
        let directory = directory ?? Scratch.path("smtp")
        try FileManager.default.createDirectory(atPath: directory + "/mail", withIntermediateDirectories: true)
        self.directory = directory
        var arguments = [Binary.repository + "/Tests/smtp/smtp_sink.py", "--dir", directory + "/mail"]
        if starttls {
            if !FileManager.default.fileExists(atPath: directory + "/cert.pem") { try Self.makeCertificate(in: directory) }
            arguments += ["--starttls", directory + "/cert.pem", directory + "/key.pem"]
        }
        if let auth { arguments += ["--auth", "\(auth.0):\(auth.1)"] }
        if !fail.isEmpty { arguments += ["--fail", fail.joined(separator: ",")] }
        if let port { arguments += ["--port", String(port)] }
        let python = Binary.repository + "/.build/venv/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw OIDCMock.Failure("aiosmtpd is not installed at .build/venv: run scripts/setup")
        }
        let out = directory + "/out-\(UUID())"
        let process = try ChildProcess([python] + arguments, output: out)
        self.process = process
        for _ in 0..<400 {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }), let p = Int(line.dropFirst(10)) {
                self.port = p
                return
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.stop()
        throw OIDCMock.Failure("the SMTP server did not start: \((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")")
    }

    /// Stops it now (its directory, certificate and mail stay for a restart).
    func stop() { process.stop() }

    deinit { stop() }

    /// The certificate's PEM (a `caFile` that trusts it).
    var certificate: String { directory + "/cert.pem" }

    private static func makeCertificate(in directory: String) throws {
        try ChildProcess.run([
            "/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost", "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ])
    }

    /// The messages accepted so far, in order.
    func received() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory + "/mail").filter { $0.hasSuffix(".json") }
        return try names.sorted { Int($0.dropLast(5))! < Int($1.dropLast(5))! }.map { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/mail/" + name))
            let o = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return Received(
                from: o["from"] as? String ?? "", to: o["to"] as? [String] ?? [], data: o["data"] as? String ?? "",
                tls: o["tls"] as? Bool ?? false, auth: o["auth"] as? Bool ?? false)
        }
    }

    /// Waits until `count` messages arrived (at most `seconds`: a bound for a failing test, far
    /// above what a loaded machine takes), and returns them.
    func waitFor(_ count: Int, seconds: Double = 90) async throws -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let found = try received()
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try received()
    }
}
