// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOSSL
import TestSupport
import Testing

/// `authsh serve --tls-cert --tls-key`, the real binary: HTTPS, its reload on SIGHUP (the
/// certificate and the plugins, a signal only the real process gets), and its refusals.
@Suite(.binary, .timeLimit(.minutes(5))) struct TLSServeTests {
    /// certbot's renewal as an operator wires it: new files in place, then `systemctl reload`
    /// (SIGHUP). New connections get the new certificate; a connection open across the reload
    /// keeps being served. The plugins are reloaded by the same signal.
    @Test func sighupReloadsTheCertificateWithoutDroppingConnections() async throws {
        let rotation = try Rotation()
        let (dir, first, second) = (rotation.directory, rotation.first, rotation.second)
        try FileManager.default.createDirectory(atPath: dir + "/plugins", withIntermediateDirectories: true)
        try Binary.write("return function() return 1 end", to: dir + "/plugins/version.lua")
        let server = try await ServerProcess(rotation.options + ["--plugins", dir + "/plugins"], examplePlugins: false)
        #expect(server.origin.hasPrefix("https://127.0.0.1:"), "\(server.origin)")
        let port = try #require(server.origin.split(separator: ":").last.flatMap { Int($0) })
        let firstCertificate = try NIOSSLCertificate(file: first.certFile, format: .pem)
        let secondCertificate = try NIOSSLCertificate(file: second.certFile, format: .pem)

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([firstCertificate, secondCertificate])
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        defer { _ = Task { try? await client.shutdown() } }
        let http = JSONHTTP(origin: server.origin, client: client)
        let token = try #require(try await http.send(.POST, http.app() + "/auth/providers/anon-user/login", json: "{}")["access_token"])
        try Binary.write("return function() return 2 end", to: dir + "/plugins/version.lua")
        #expect(try await http.call("version", token: token).integer == 1, "production reloads on SIGHUP only")

        try await TLSConnection.with(port: port, trusting: first.certFile) { kept in
            #expect(kept.peerCertificate == firstCertificate)
            try rotation.install(second)
            server.process.signal(SIGHUP)
            try await Self.waitForLog(server, "TLS certificate reloaded")
            // The connection from before the reload is still served.
            let again = try await kept.get("/healthz")
            #expect(again == "HTTP/1.1 200 OK", "\(again)")
            #expect(kept.peerCertificate == firstCertificate)
        }
        // A new one gets the new certificate (and a client trusting only the old one fails).
        try await TLSConnection.with(port: port, trusting: second.certFile) { fresh in
            #expect(fresh.peerCertificate == secondCertificate)
        }
        await #expect(throws: (any Error).self) {
            try await TLSConnection.with(port: port, trusting: first.certFile) { _ in }
        }
        // The plugins were reloaded by the same signal (on the next call).
        var version = try await http.call("version", token: token).integer
        for _ in 0..<100 where version == 1 {
            try await Task.sleep(for: .milliseconds(20))
            version = try await http.call("version", token: token).integer
        }
        #expect(version == 2)
        #expect(server.process.isRunning)
    }

    /// A rotation caught half done (the new certificate in place, its key not yet) keeps the
    /// certificate the server has, and says why.
    @Test func aBadReloadKeepsTheCurrentCertificate() async throws {
        let rotation = try Rotation()
        let first = rotation.first
        let server = try await ServerProcess(rotation.options, examplePlugins: false)
        let port = try #require(server.origin.split(separator: ":").last.flatMap { Int($0) })
        try FileManager.default.removeItem(atPath: rotation.certFile)
        try FileManager.default.copyItem(atPath: rotation.second.certFile, toPath: rotation.certFile)
        server.process.signal(SIGHUP)
        try await Self.waitForLog(server, "TLS certificate not reloaded")
        let text = try String(contentsOfFile: server.directory + "/err", encoding: .utf8)
        #expect(text.contains("is not the key of the first certificate"), "\(text)")
        let firstCertificate = try NIOSSLCertificate(file: first.certFile, format: .pem)
        try await TLSConnection.with(port: port, trusting: first.certFile) { connection in
            #expect(connection.peerCertificate == firstCertificate)
        }
    }

    @Test func optionsAndChecks() async throws {
        let dir = try Binary.temporaryDirectory()
        let certificate = try TestCertificate(directory: dir)
        let alone = try await Binary.run(["serve", "--tls-cert", certificate.certFile])
        #expect(alone.status == 64 && alone.stderr.contains("--tls-cert and --tls-key go together"), "\(alone.stderr)")
        #expect(try await Binary.run(["serve", "--tls-cert", certificate.certFile, "--tls-key", certificate.keyFile, "--check"]).status == 0)
        chmod(certificate.keyFile, 0o644)
        let open = try await Binary.run(["serve", "--tls-cert", certificate.certFile, "--tls-key", certificate.keyFile, "--check"])
        #expect(
            open.status == 78 && open.stderr.contains("tls.keyFile: \(certificate.keyFile) is open to users other than its owner"), "\(open.stderr)")
        let serve = try await Binary.run(["serve", "--port", "0", "--tls-cert", certificate.certFile, "--tls-key", certificate.keyFile])
        #expect(serve.status == 78 && serve.stdout.isEmpty, "\(serve.stderr)")
    }

    /// Waits until the server's log says `text`.
    static func waitForLog(_ server: ServerProcess, _ text: String) async throws {
        let log = server.directory + "/err"
        _ = try await server.process.waitForOutput(timeout: .seconds(30)) { _ in
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(text) ? true : nil
        }
    }

    /// Two certificates, `first` served from `server.crt` and `server.key` until `install`
    /// replaces them.
    struct Rotation {
        let directory: String
        let first: TestCertificate
        let second: TestCertificate
        var certFile: String { directory + "/server.crt" }
        var keyFile: String { directory + "/server.key" }
        /// `authsh serve`'s options for the served files.
        var options: [String] { ["--tls-cert", certFile, "--tls-key", keyFile] }

        init() throws {
            directory = try Binary.temporaryDirectory()
            first = try TestCertificate(directory: directory, name: "first")
            second = try TestCertificate(directory: directory, name: "second")
            try install(first)
        }

        /// Replaces the served files as certbot's deploy hook does: each written aside, then
        /// renamed over.
        func install(_ certificate: TestCertificate) throws {
            for (from, to) in [(certificate.certFile, certFile), (certificate.keyFile, keyFile)] {
                try? FileManager.default.removeItem(atPath: to + ".new")
                try FileManager.default.copyItem(atPath: from, toPath: to + ".new")
                chmod(to + ".new", 0o600)
                guard rename(to + ".new", to) == 0 else { throw TerminalError(message: "rename \(to): errno \(errno)") }
            }
        }
    }
}
