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
    /// The credentials read last, and whether they replaced the start-up ones.
    private let current: Mutex<(credentials: TLSCredentials, reloaded: Bool)>

    init(files: TLSFiles, logger: Logger) throws(ConfigError) {
        self.files = files
        self.logger = logger
        current = Mutex((try TLSCredentials.load(files), false))
    }

    /// The credentials the server started with, or reloaded last.
    var credentials: TLSCredentials { current.withLock { $0.credentials } }

    /// Reads the files again. Credentials that fail their checks (a half-written file, a key
    /// that does not match) are logged and ignored: the server keeps the ones it has.
    @discardableResult
    func reload() -> Bool {
        do {
            let loaded = try TLSCredentials.load(files)
            current.withLock { $0 = (loaded, true) }
            logger.notice("TLS certificate reloaded", metadata: ["certFile": "\(files.certFile)"])
            return true
        } catch {
            logger.error("TLS certificate not reloaded, the one loaded before is kept: \(error.reason)")
            return false
        }
    }

    /// The server's TLS configuration: the credentials read now, HTTP/2 and HTTP/1.1 by ALPN,
    /// and the callback that hands later handshakes what ``reload()`` read.
    func serverConfiguration() -> TLSConfiguration {
        let start = credentials
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: start.chain.map { .certificate($0) }, privateKey: .privateKey(start.key))
        tls.sslContextCallback = { [self] _, promise in
            let (credentials, reloaded) = current.withLock { ($0.credentials, $0.reloaded) }
            guard reloaded else { return promise.succeed(.noChanges) }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = credentials.chain.map { .certificate($0) }
            override.privateKey = .privateKey(credentials.key)
            promise.succeed(override)
        }
        return tls
    }
}
