// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOSSL
import TestSupport
import Testing

@testable import AuthServer

/// The TLS versions and cipher suites the server's own TLS accepts: TLS 1.2 and 1.3 by default
/// (1.0 and 1.1 never, RFC 8996), TLS 1.2 with ECDHE and AEAD suites only, TLS 1.3 alone when
/// `tls.minimumVersion` is "1.3". Each client is swift-nio-ssl's (BoringSSL), which still speaks
/// the old versions when asked.
@Suite(.timeLimit(.minutes(5))) struct TLSVersionTests {
    /// A client's offer: its newest version and, when set, its only TLS 1.2 cipher suites.
    struct Offer: Sendable, CustomTestStringConvertible {
        var newest: TLSVersion?
        var ciphers: [NIOTLSCipher]? = nil
        var testDescription: String { "\(newest.map { "\($0)" } ?? "any version")\(ciphers == nil ? "" : " with CBC only")" }
    }

    static let cbcOnly: [NIOTLSCipher] = [.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA]

    /// Whether a request with `offer` to the server on `port` is answered.
    static func served(_ offer: Offer, port: Int, certificate: TestCertificate) async -> Bool {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate.certFile)
        tls.minimumTLSVersion = .tlsv1
        tls.maximumTLSVersion = offer.newest
        if let ciphers = offer.ciphers { tls.cipherSuiteValues = ciphers }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        defer { Task { try? await client.shutdown() } }
        let response = try? await client.execute(HTTPClientRequest(url: "https://localhost:\(port)/healthz"), timeout: .seconds(30))
        return response?.status == .ok
    }

    static func check(minimum: TLSMinimumVersion?, _ offers: [(Offer, Bool)]) async throws {
        let dir = try TemporaryDirectory("tls")
        let certificate = try TestCertificate(directory: dir.path)
        var config = TLSTests.tlsConfiguration(certificate)
        if let minimum { config.tls?.minimumVersion = minimum }
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            for (offer, expected) in offers {
                #expect(await Self.served(offer, port: port, certificate: certificate) == expected, "\(offer.testDescription)")
            }
        }
    }

    @Test func tls12IsTheFloorWithForwardSecretAEADSuites() async throws {
        try await Self.check(
            minimum: nil,
            [
                (Offer(newest: .tlsv1), false), (Offer(newest: .tlsv11), false), (Offer(newest: .tlsv12), true),
                (Offer(newest: .tlsv12, ciphers: Self.cbcOnly), false), (Offer(newest: nil), true),
            ])
    }

    @Test func tls13Only() async throws {
        try await Self.check(minimum: .tls13, [(Offer(newest: .tlsv12), false), (Offer(newest: nil), true)])
    }

    @Test func theConfigNamesTheVersion() throws {
        var config = ServerConfiguration()
        let tls = #"{"tls": {"certFile": "a.crt", "keyFile": "a.key", "minimumVersion": "VERSION"}, "apps": [{"id": "x"}]}"#
        try config.loadConfig(Array(tls.replacingOccurrences(of: "VERSION", with: "1.3").utf8), file: "c.json")
        #expect(config.tls?.minimumVersion == .tls13)
        #expect(throws: ConfigError.self) {
            try config.loadConfig(Array(tls.replacingOccurrences(of: "VERSION", with: "1.1").utf8), file: "c.json")
        }
    }
}
