// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A self-signed certificate for `localhost` and 127.0.0.1 and its P-256 key, made by `openssl`
/// as an operator would make one, in PEM files a test serves HTTPS with and trusts.
public struct TestCertificate: Sendable {
    /// The certificate, PEM (also the trust root a client is given).
    public let certFile: String
    /// The private key, PEM, mode 0600.
    public let keyFile: String

    /// Makes `NAME.crt` and `NAME.key` in `directory`, the certificate's subject `CN=NAME`.
    public init(directory: String, name: String = "localhost") throws {
        certFile = directory + "/\(name).crt"
        keyFile = directory + "/\(name).key"
        try ChildProcess.run([
            "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-subj", "/CN=\(name)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
            "-keyout", keyFile, "-out", certFile,
        ])
        chmod(keyFile, 0o600)
    }
}
