// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The certificate and key the server serves HTTPS with (config `tls: {certFile, keyFile}`,
/// `--tls-cert`, `--tls-key`): PEM files, the certificate file holding the server's
/// certificate first and then any intermediates (certbot's `fullchain.pem`), and the oldest
/// TLS version served (config `tls.minimumVersion`, `--tls-min-version`).
public struct TLSFiles: Sendable, Equatable {
    /// The certificate chain, PEM.
    public var certFile: String
    /// The private key, PEM; refused when others may read it (``TLSCredentials``).
    public var keyFile: String

    /// The oldest TLS version a client may connect with: 1.2 (RFC 8996 retired 1.0 and 1.1),
    /// or 1.3 only.
    public var minimumVersion: TLSMinimumVersion

    public init(certFile: String, keyFile: String, minimumVersion: TLSMinimumVersion = .tls12) {
        self.certFile = certFile
        self.keyFile = keyFile
        self.minimumVersion = minimumVersion
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let cert = try r.string("certFile"), !cert.isEmpty else { throw ConfigError(key: r.keyPath("certFile"), reason: "missing") }
        guard let key = try r.string("keyFile"), !key.isEmpty else { throw ConfigError(key: r.keyPath("keyFile"), reason: "missing") }
        var minimum = TLSMinimumVersion.tls12
        if let v = try r.string("minimumVersion") {
            guard let version = TLSMinimumVersion(rawValue: v) else {
                throw ConfigError(key: r.keyPath("minimumVersion"), reason: "\"\(v)\" is not a TLS version authsh serves: \"1.2\" or \"1.3\"")
            }
            minimum = version
        }
        try r.finish()
        self.init(certFile: cert, keyFile: key, minimumVersion: minimum)
    }
}

/// The oldest TLS version the server accepts. There is no older choice: TLS 1.0 and 1.1 are
/// refused whatever the config says (RFC 8996).
public enum TLSMinimumVersion: String, Sendable, CaseIterable {
    /// TLS 1.2 and 1.3, TLS 1.2 with ``CertificateReloader/cipherSuites`` only.
    case tls12 = "1.2"
    /// TLS 1.3 only.
    case tls13 = "1.3"
}
