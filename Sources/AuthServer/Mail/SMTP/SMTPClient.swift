// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import AuthProtocol
import NIOCore
import NIOPosix
import NIOSSL

/// One SMTP session per message (RFC 5321): connect, `EHLO`, secure the connection
/// (`STARTTLS`, RFC 3207, or TLS from the start), authenticate (`AUTH PLAIN` or `LOGIN`, RFC
/// 4954), `MAIL FROM`, `RCPT TO`, `DATA`, `QUIT`.
///
/// With `starttls` a server that does not offer it gets nothing (a permanent failure: a
/// retry would not change it). Credentials are never sent on an unencrypted connection. No
/// command or reply that carries a credential reaches an error or a log.
struct SMTPClient: Sendable {
    let configuration: MailConfiguration
    private let tls: NIOSSLContext?
    /// The name this client gives in `EHLO`.
    let helloName: String

    /// - Throws: a configuration error when the `caFile` cannot be read.
    init(configuration: MailConfiguration, helloName: String = "localhost") throws(ConfigError) {
        self.configuration = configuration
        self.helloName = helloName
        guard configuration.security != .none else {
            tls = nil
            return
        }
        var settings = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile {
            // Read here, so that a FIFO or a device is refused rather than waited on by BoringSSL.
            let bytes: [UInt8]
            do { bytes = try RegularFile.read(caFile, limit: 1 << 20) } catch { throw ConfigError(key: "mail.caFile", reason: error.description) }
            do { settings.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(bytes)) } catch {
                throw ConfigError(key: "mail.caFile", reason: "\(caFile) holds no PEM certificate that can be read")
            }
        }
        do {
            tls = try NIOSSLContext(configuration: settings)
        } catch {
            throw ConfigError(key: "mail.caFile", reason: "cannot use it for TLS: \(error)")
        }
    }

    /// Delivers `message`.
    /// - Throws: ``SMTPError``, permanent or not.
    func send(_ message: MailMessage) async throws(SMTPError) {
        let session = try await connect()
        defer { session.close() }
        try await session.expect(220, "greeting")
        var extensions = try await session.hello(helloName)
        if configuration.security == .starttls {
            guard extensions.contains(where: { $0.uppercased() == "STARTTLS" }) else {
                throw .permanent("the server does not offer STARTTLS (security is starttls: nothing is sent in the clear)")
            }
            try await session.command("STARTTLS", expect: 220)
            try await session.startTLS(try handler())
            extensions = try await session.hello(helloName)
        }
        if let username = configuration.username, let password = configuration.password?.value {
            // Never in the clear, whatever built the configuration (the config file refuses it too).
            guard configuration.security != .none else { throw .permanent("credentials need security starttls or tls") }
            try await authenticate(session, extensions: extensions, username: username, password: password)
        }
        try await session.command("MAIL FROM:<\(message.from.address)>", expect: 250)
        try await session.command("RCPT TO:<\(message.to.address)>", expect: 250, or: 251)
        try await session.command("DATA", expect: 354)
        try await session.command(message.dotStuffed, name: "DATA (message)", expect: 250)
        _ = try? await session.send("QUIT")
    }

    private func authenticate(_ session: SMTPSession, extensions: [String], username: String, password: String) async throws(SMTPError) {
        let mechanisms = extensions.first { $0.uppercased().hasPrefix("AUTH ") }?.uppercased().split(separator: " ").dropFirst() ?? []
        if mechanisms.contains("PLAIN") {
            let token = Base64.encode(Array("\u{0}\(username)\u{0}\(password)".utf8))
            try await session.command("AUTH PLAIN \(token)", name: "AUTH PLAIN", expect: 235)
        } else if mechanisms.contains("LOGIN") {
            try await session.command("AUTH LOGIN", expect: 334)
            try await session.command(Base64.encode(Array(username.utf8)), name: "AUTH LOGIN (username)", expect: 334)
            try await session.command(Base64.encode(Array(password.utf8)), name: "AUTH LOGIN (password)", expect: 235)
        } else {
            throw .permanent("the server offers neither AUTH PLAIN nor AUTH LOGIN")
        }
    }

    private func handler() throws(SMTPError) -> NIOSSLClientHandler {
        guard let tls else { throw .permanent("TLS is not configured") }
        do {
            // SNI and name checks need a host name; an address literal gets neither (by what
            // the system parses as one: `dead.beef.ca` is a name).
            let isAddress = (try? SocketAddress(ipAddress: configuration.host, port: 0)) != nil
            return try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : configuration.host)
        } catch {
            throw .permanent("TLS: \(error)")
        }
    }

    private func connect() async throws(SMTPError) -> SMTPSession {
        let replies = SMTPReplyHandler()
        let tlsHandler = configuration.security == .tls ? try handler() : nil
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(configuration.connectTimeoutSeconds))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tlsHandler { try channel.pipeline.syncOperations.addHandler(tlsHandler) }
                    try channel.pipeline.syncOperations.addHandler(replies)
                }
            }
        do {
            let channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
            return SMTPSession(
                channel: channel, replies: replies,
                timeout: .seconds(configuration.commandTimeoutSeconds))
        } catch {
            throw .transient("cannot connect to \(configuration.host):\(configuration.port): \(error)")
        }
    }
}
