// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The certificate and key new TLS connections get, replaced by ``reload()`` (SIGHUP) without
/// touching the connections already open.
///
/// The server's `NIOSSLContext` is built once, with the credentials read at start-up. After a
/// reload, every handshake gets the current ones through swift-nio-ssl's context callback,
/// which runs once per ClientHello; before any reload it changes nothing, so a server whose
/// certificate was never rotated pays nothing for the callback but a lock.
final class CertificateReloader: Sendable {
    let files: TLSFiles
    private let logger: Logger
    /// The credentials read at start-up, which the server's context holds.
    private let start: TLSCredentials
    /// What a handshake changes in that context: nothing until a reload, then the credentials
    /// it read, built once per reload rather than once per handshake.
    private let override = Mutex(NIOSSLContextConfigurationOverride.noChanges)

    init(files: TLSFiles, logger: Logger) throws(ConfigError) {
        self.files = files
        self.logger = logger
        start = try TLSCredentials.load(files)
    }

    /// Reads the files again. Credentials that fail their checks (a half-written file, a key
    /// that does not match) are logged and ignored: the server keeps the ones it has.
    @discardableResult
    func reload() -> Bool {
        do {
            let loaded = try TLSCredentials.load(files)
            var next = NIOSSLContextConfigurationOverride()
            next.certificateChain = loaded.chain.map { .certificate($0) }
            next.privateKey = .privateKey(loaded.key)
            override.withLock { $0 = next }
            logger.notice("TLS certificate reloaded", metadata: ["certFile": "\(files.certFile)"])
            return true
        } catch {
            logger.error("TLS certificate not reloaded, the one loaded before is kept: \(error.reason)")
            return false
        }
    }

    /// TLS 1.2's cipher suites: forward secrecy (ECDHE) and authenticated encryption (AES-GCM,
    /// ChaCha20-Poly1305) only, with ECDSA or RSA certificates: Mozilla's "intermediate" list
    /// without its finite-field DHE, which BoringSSL does not have. TLS 1.3's suites are all of
    /// that kind and are not configurable.
    static let cipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server's TLS configuration: the start-up credentials, TLS 1.2 or newer (1.3 only
    /// when the files say so) with ``cipherSuites``, and the callback that hands later
    /// handshakes what ``reload()`` read. (`HTTP2UpgradeChannel` adds the ALPN protocols.)
    func serverConfiguration() -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: start.chain.map { .certificate($0) }, privateKey: .privateKey(start.key))
        tls.minimumTLSVersion = files.minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        tls.cipherSuiteValues = Self.cipherSuites
        tls.sslContextCallback = { [self] _, promise in promise.succeed(override.withLock { $0 }) }
        return tls
    }
}
