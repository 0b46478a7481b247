// SPDX-License-Identifier: Apache-2.0
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// HTTPS connections: Hummingbird's HTTP/2-or-HTTP/1.1 channel (ALPN), with a deadline on the
/// TLS handshake.
///
/// Hummingbird's idle timeout starts once the protocol is negotiated, and nothing bounds the
/// handshake before it: a client that opens connections and never sends its ClientHello (or
/// never finishes the handshake) would hold each one, and its file descriptor, for ever. Plain
/// HTTP connections are closed after the idle timeout when no request arrives; TLS ones are
/// closed after the same time when the handshake has not completed.
struct TLSServerChannel: ServerChildChannel {
    typealias Value = HTTP2UpgradeChannel.Value

    let inner: HTTP2UpgradeChannel
    let handshakeTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let tls = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            try channel.pipeline.syncOperations.addHandler(HandshakeDeadline(timeout: handshakeTimeout), position: .after(tls))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Closes its channel unless the TLS handshake completes within `timeout`, then leaves the
/// pipeline. It sits right after the TLS handler, so it sees the handshake's event first
/// and passes it on.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            timer?.cancel()
            timer = nil
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
