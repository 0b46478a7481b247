// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One TLS connection to a server, kept open across requests: HTTP/1.1 written and read by
/// hand, and the certificate the server presented, so that a test can tell a connection that
/// outlived a certificate rotation from a new one.
final class TLSConnection {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    /// The certificate the server presented in the handshake.
    private(set) var peerCertificate: NIOSSLCertificate?

    /// Connects to `127.0.0.1:port`, trusting only `certFile` for the name `localhost`, runs
    /// `body` with the connection, and closes it.
    static func with<T>(port: Int, trusting certFile: String, _ body: (TLSConnection) async throws -> T) async throws -> T {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certFile)
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            let connection = TLSConnection(inbound: inbound.makeAsyncIterator(), outbound: outbound)
            // The handshake is done once an answer arrives; the certificate is asked for then.
            _ = try await connection.get("/healthz")
            connection.peerCertificate = try await channel.channel.nioSSL_peerCertificate().get()
            return try await body(connection)
        }
    }

    private init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// `GET path` on this connection; the response's status line (its body is read and dropped).
    func get(_ path: String) async throws -> String {
        try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n"))
        var received = ""
        while true {
            guard let chunk = try await inbound.next() else { throw TerminalError(message: "the server closed the connection: \(received)") }
            received += String(buffer: chunk)
            guard let end = received.range(of: "\r\n\r\n") else { continue }
            let head = received[..<end.lowerBound]
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.utf8.count - received.utf8.distance(from: received.startIndex, to: end.upperBound) >= length {
                return String(head.split(separator: "\r\n").first ?? "")
            }
        }
    }
}
