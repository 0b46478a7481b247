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

    /// The file's bytes, read from the descriptor whose mode was checked (no window between
    /// the check and the read). A secret's file may not be readable by others nor writable by
    /// its group or others.
    private static func read(_ path: String, key: String, secret: Bool) throws(ConfigError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfigError(key: key, reason: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError(key: key, reason: "\(path) is not a regular file")
        }
        let mode = info.st_mode & 0o777
        if secret && mode & 0o027 != 0 {
            throw ConfigError(
                key: key,
                reason: "\(path) is open to users other than its owner and group (mode \(String(mode, radix: 8))): "
                    + "chmod 600 \(path) (or 640 with a group the server is in)")
        }
        guard info.st_size <= 1 << 20 else { throw ConfigError(key: key, reason: "\(path) is larger than 1 MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw ConfigError(key: key, reason: "cannot read \(path): \(n == 0 ? "it shrank while read" : String(cString: strerror(errno)))")
            }
            done += n
        }
        return bytes
    }
}
