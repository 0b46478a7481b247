// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
import Foundation
import Glibc
import NIOSSL
import TestSupport
import Testing

@testable import AuthServer

/// The server's own TLS (config `tls`): HTTPS with HTTP/2 and HTTP/1.1 by ALPN, what it serves
/// as its own origin, the key files it refuses, and connections that never finish a handshake.
@Suite(.timeLimit(.minutes(5))) struct TLSTests {
    /// A client that trusts `certificate` and speaks `version` (automatic: HTTP/2 when ALPN gives it).
    static func client(trusting certificate: TestCertificate, version: HTTPClient.Configuration.HTTPVersion) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate.certFile)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = version
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    static func tlsConfiguration(_ certificate: TestCertificate) -> ServerConfiguration {
        var config = TestServer.configuration()
        config.tls = TLSFiles(certFile: certificate.certFile, keyFile: certificate.keyFile)
        return config
    }

    @Test(arguments: [("automatic", "2"), ("http1Only", "1.1")])
    func servesHTTPSWithBothVersions(version: String, expected: String) async throws {
        let dir = try TemporaryDirectory("tls")
        let certificate = try TestCertificate(directory: dir.path)
        try await TestServer.run(Self.tlsConfiguration(certificate), mode: .live) { c in
            let port = try #require(c.client.port)
            let client = Self.client(trusting: certificate, version: version == "automatic" ? .automatic : .http1Only)
            do {
                let response = try await client.execute(
                    HTTPClientRequest(url: "https://localhost:\(port)/api/client/v2.0/app/local/location"), timeout: .seconds(30))
                #expect(response.status == .ok)
                #expect("\(response.version.major)\(response.version.minor == 0 ? "" : ".\(response.version.minor)")" == expected)
                let body = try EJSON(parsing: Array(try await response.body.collect(upTo: 1 << 16).readableBytesView))
                // The origin the client used, as https: realm-core sends its later requests there.
                let hostname = body["hostname"]?.stringValue ?? ""
                #expect(hostname.hasPrefix("https://") && hostname.hasSuffix(":\(port)"), "\(hostname)")
                #expect(body["ws_hostname"]?.stringValue?.hasPrefix("wss://") == true)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    /// Over the server's own TLS the admin page's form posts to an https origin, from any peer.
    @Test func theAdminPageOverOwnTLSPostsToHTTPS() async throws {
        let dir = try TemporaryDirectory("tls")
        let certificate = try TestCertificate(directory: dir.path)
        var config = Self.tlsConfiguration(certificate)
        config.adminKeys = try AdminKeys([(name: "ops", key: "ops-key-abcdefabcdefabcdefabcdefabcdef")])
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            let client = Self.client(trusting: certificate, version: .automatic)
            defer { _ = Task { try? await client.shutdown() } }
            let response = try await client.execute(HTTPClientRequest(url: "https://localhost:\(port)/admin/login"), timeout: .seconds(30))
            let page = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(response.status == .ok)
            #expect(page.contains(#"action="https://localhost:\#(port)/admin/login""#), "\(page.prefix(2000))")
        }
    }

    /// A connection that sends nothing, or half a ClientHello, is closed after the idle timeout.
    @Test(arguments: ["", "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}"])
    func aHandshakeThatNeverEndsIsClosed(sent: String) async throws {
        let dir = try TemporaryDirectory("tls")
        var config = Self.tlsConfiguration(try TestCertificate(directory: dir.path))
        config.idleTimeout = .seconds(1)
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            let closed = try await RawHTTP.closesAfter(sending: sent, port: port)
            #expect(closed, "the server kept a connection that never finished its TLS handshake")
        }
    }

    /// A key others may read or change, a key that is not the certificate's, a file that is
    /// not PEM: a config error naming the key and the file, before anything listens.
    @Test func keysTheServerRefuses() async throws {
        let dir = try TemporaryDirectory("tls")
        let certificate = try TestCertificate(directory: dir.path)
        let other = try TestCertificate(directory: dir.path, name: "other")
        func refusal(_ files: TLSFiles) async -> ConfigError? {
            var config = TestServer.configuration()
            config.tls = files
            do {
                _ = try await buildApplication(config)
                return nil
            } catch {
                return error as? ConfigError
            }
        }
        for mode in [0o644, 0o604, 0o660, 0o601] as [mode_t] {
            chmod(certificate.keyFile, mode)
            let error = await refusal(TLSFiles(certFile: certificate.certFile, keyFile: certificate.keyFile))
            #expect(
                error?.key == "tls.keyFile" && error?.reason.contains("chmod 600 \(certificate.keyFile)") == true,
                "\(mode): \(String(describing: error))")
        }
        chmod(certificate.keyFile, 0o640)
        #expect(await refusal(TLSFiles(certFile: certificate.certFile, keyFile: certificate.keyFile)) == nil)
        let mismatched = await refusal(TLSFiles(certFile: certificate.certFile, keyFile: other.keyFile))
        #expect(mismatched?.key == "tls.keyFile" && mismatched?.reason.contains("is not the key of the first certificate") == true)
        let notPEM = await refusal(TLSFiles(certFile: certificate.keyFile, keyFile: other.keyFile))
        #expect(notPEM?.key == "tls.certFile", "\(String(describing: notPEM))")
        let missing = await refusal(TLSFiles(certFile: dir.path + "/none.crt", keyFile: other.keyFile))
        #expect(missing?.key == "tls.certFile" && missing?.reason.contains("No such file") == true)
        // A key file's bytes never reach a message.
        try Data("-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: dir.path + "/bad.key"))
        chmod(dir.path + "/bad.key", 0o600)
        let bad = await refusal(TLSFiles(certFile: certificate.certFile, keyFile: dir.path + "/bad.key"))
        #expect(bad?.key == "tls.keyFile" && bad?.description.contains("c2VjcmV0") == false)
    }

    @Test func theConfigFileNamesTheFiles() throws {
        var config = ServerConfiguration()
        try config.loadConfig(Array(#"{"tls": {"certFile": "a.crt", "keyFile": "a.key"}, "apps": [{"id": "x"}]}"#.utf8), file: "c.json")
        #expect(config.tls == TLSFiles(certFile: "a.crt", keyFile: "a.key"))
        #expect(config.scheme == "https")
        #expect(throws: ConfigError.self) {
            try config.loadConfig(Array(#"{"tls": {"certFile": "a.crt"}, "apps": [{"id": "x"}]}"#.utf8), file: "c.json")
        }
    }
}
