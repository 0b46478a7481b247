// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// How the server delivers its mail (config `mail`): an SMTP relay.
///
/// ```json
/// "mail": {"host": "smtp.example.com", "port": 587, "security": "starttls",
///          "username": "authsh", "password": {"env": "SMTP_PASSWORD"},
///          "from": "Example <no-reply@example.com>", "caFile": "/etc/ssl/relay.pem"}
/// ```
public struct MailConfiguration: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable {
        /// Plain, then `STARTTLS` (RFC 3207); a server that does not offer it gets nothing.
        case starttls
        /// TLS from the first byte (port 465).
        case tls
        /// No encryption (a relay on the same host); no credentials are sent this way.
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: ConfigSecret?
    /// The `From` address, optionally with a display name: `Name <address>`.
    public var from: String
    /// PEM certificates to trust instead of the system's (a relay with its own CA).
    public var caFile: String?
    /// Connecting, and each reply, may take this long.
    public var connectTimeoutSeconds: Int64 = 10
    public var commandTimeoutSeconds: Int64 = 30
    /// Seconds before the second, third, ... attempt after a temporary failure (the last repeats).
    public var retryDelaysSeconds: [Int64] = [5, 30, 120, 600, 1800]
    /// A mail not delivered this long after it was queued is given up.
    public var giveUpAfterSeconds: Int64 = 86_400

    public init(host: String, port: Int, security: Security, from: String) {
        self.host = host
        self.port = port
        self.security = security
        self.from = from
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let host = try r.string("host"), !host.isEmpty else { throw ConfigError(key: r.keyPath("host"), reason: "missing") }
        let securityName = try r.string("security") ?? "starttls"
        guard let security = Security(rawValue: securityName) else {
            throw ConfigError(key: r.keyPath("security"), reason: "must be starttls, tls or none, got \"\(securityName)\"")
        }
        let defaultPort: Int64 = security == .tls ? 465 : 587
        guard let from = try r.string("from") else { throw ConfigError(key: r.keyPath("from"), reason: "missing") }
        guard MailAddress(from) != nil else {
            throw ConfigError(key: r.keyPath("from"), reason: "must be an address or `Name <address>`, got \"\(from)\"")
        }
        self.init(host: host, port: Int(try r.integer("port", in: 1...65535) ?? defaultPort), security: security, from: from)
        username = try r.string("username")
        if let secret = r.value("password") { password = try ConfigSecret(ejson: secret, key: r.keyPath("password")) }
        if (username == nil) != (password == nil) {
            throw ConfigError(key: r.keyPath(username == nil ? "username" : "password"), reason: "username and password go together")
        }
        if username != nil && security == .none {
            throw ConfigError(key: r.keyPath("security"), reason: "credentials are never sent unencrypted: use starttls or tls")
        }
        caFile = try r.string("caFile")
        connectTimeoutSeconds = try r.integer("connectTimeoutSeconds", in: 1...300) ?? connectTimeoutSeconds
        commandTimeoutSeconds = try r.integer("commandTimeoutSeconds", in: 1...600) ?? commandTimeoutSeconds
        if let delays = r.value("retryDelaysSeconds") {
            guard case .array(let items) = delays, !items.isEmpty, items.count <= 20 else {
                throw r.mismatch("retryDelaysSeconds", "an array of 1 to 20 numbers of seconds", delays)
            }
            retryDelaysSeconds = try items.map { (item: EJSON) throws(ConfigError) -> Int64 in
                guard let n = item.integerValue, (1...86_400).contains(n) else {
                    throw ConfigError(key: r.keyPath("retryDelaysSeconds"), reason: "each delay must be 1 to 86400 seconds")
                }
                return n
            }
        }
        giveUpAfterSeconds = try r.integer("giveUpAfterSeconds", in: 60...(30 * 86_400)) ?? giveUpAfterSeconds
        try r.finish()
    }
}
