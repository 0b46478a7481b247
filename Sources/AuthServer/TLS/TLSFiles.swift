import AuthProtocol

/// The certificate and key the server serves HTTPS with (config `tls: {certFile, keyFile}`,
/// `--tls-cert`, `--tls-key`): PEM files, the certificate file holding the server's
/// certificate first and then any intermediates (certbot's `fullchain.pem`).
public struct TLSFiles: Sendable, Equatable {
    /// The certificate chain, PEM.
    public var certFile: String
    /// The private key, PEM; refused when others may read it (``TLSCredentials``).
    public var keyFile: String

    public init(certFile: String, keyFile: String) {
        self.certFile = certFile
        self.keyFile = keyFile
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let cert = try r.string("certFile"), !cert.isEmpty else { throw ConfigError(key: r.keyPath("certFile"), reason: "missing") }
        guard let key = try r.string("keyFile"), !key.isEmpty else { throw ConfigError(key: r.keyPath("keyFile"), reason: "missing") }
        try r.finish()
        self.init(certFile: cert, keyFile: key)
    }
}
