// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc
import NIOSSL

/// A certificate chain and its private key, read from ``TLSFiles`` and checked: both parse,
/// the chain is not empty, the key belongs to the first certificate, and the key file is not
/// one that others may read or anyone but its owner and group may change.
///
/// The key's rule is Debian's `ssl-cert` convention: `0600` owned by the server's user, or
/// `0640` with a group the server is in (`root:ssl-cert`). A key readable by every user of the
/// machine is a key anyone on it can impersonate the server with: it is refused, as
/// PostgreSQL and OpenSSH refuse theirs, with the command that fixes it.
struct TLSCredentials: Sendable {
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey

    /// Reads and checks `files`.
    /// - Throws: ``ConfigError`` (key `tls.certFile` or `tls.keyFile`) saying what is wrong.
    static func load(_ files: TLSFiles) throws(ConfigError) -> TLSCredentials {
        let certBytes = try read(files.certFile, key: "tls.certFile", secret: false)
        let keyBytes = try read(files.keyFile, key: "tls.keyFile", secret: true)
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certBytes)
        } catch {
            throw ConfigError(key: "tls.certFile", reason: "\(files.certFile) holds no PEM certificate that can be read")
        }
        guard !chain.isEmpty else {
            throw ConfigError(key: "tls.certFile", reason: "\(files.certFile) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            // Never the key's bytes, nor the library's text about them.
            throw ConfigError(
                key: "tls.keyFile", reason: "\(files.keyFile) holds no PEM private key that can be read (encrypted keys are not supported)")
        }
        guard
            (try? NIOSSLContext(
                configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))) != nil
        else {
            throw ConfigError(key: "tls.keyFile", reason: "\(files.keyFile) is not the key of the first certificate in \(files.certFile)")
        }
        return TLSCredentials(chain: chain, key: key)
    }

    /// The file's bytes, read from the descriptor whose type and mode were checked (no window
    /// between the check and the read; a FIFO or a device is refused without waiting on it). A
    /// secret's file may not be readable by others nor writable by its group or others.
    private static func read(_ path: String, key: String, secret: Bool) throws(ConfigError) -> [UInt8] {
        let file: RegularFile
        do { file = try RegularFile(path) } catch { throw ConfigError(key: key, reason: error.description) }
        let mode = file.info.st_mode & 0o777
        if secret && mode & 0o027 != 0 {
            throw ConfigError(
                key: key,
                reason: "\(path) is open to users other than its owner and group (mode \(String(mode, radix: 8))): "
                    + "chmod 600 \(path) (or 640 with a group the server is in)")
        }
        do { return try file.read(limit: 1 << 20) } catch { throw ConfigError(key: key, reason: error.description) }
    }
}
