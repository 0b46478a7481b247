// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// Splits what the server sends into replies (multi-line ones joined: `250-a`, `250 b`) and
/// hands each to the oldest waiting request, in order. A reply that comes before anyone waits
/// (the greeting, usually) is kept for the next.
///
/// Safety of `@unchecked Sendable`: every member is touched only on its channel's event loop.
/// NIO calls the channel callbacks there, and ``SMTPSession`` calls ``expect(_:)`` only inside
/// `eventLoop.execute`; other threads only pass the reference along.
final class SMTPReplyHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private var pending: [UInt8] = []
    private var lines: [String] = []
    private var waiting: [EventLoopPromise<SMTPReply>] = []
    private var early: [SMTPReply] = []
    private var failure: SMTPError?
    /// Longest reply line taken (RFC 5321 4.5.3.1.5 says 512; some servers send more).
    static let maximumLine = 4096

    /// Whether anything was received that no request has taken yet. Call on the event loop.
    var hasUnread: Bool { !early.isEmpty || !lines.isEmpty || !pending.isEmpty }

    /// Waits for the next reply. Call on the event loop.
    func expect(_ promise: EventLoopPromise<SMTPReply>) {
        if !early.isEmpty {
            promise.succeed(early.removeFirst())
        } else if let failure {
            promise.fail(failure)
        } else {
            waiting.append(promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            receive(String(decoding: line, as: UTF8.self), context: context)
        }
        if pending.count > Self.maximumLine { fail(.transient("the server sent a line longer than \(Self.maximumLine) bytes"), context: context) }
    }

    private func receive(_ line: String, context: ChannelHandlerContext) {
        let digits = line.prefix(3)
        guard digits.count == 3, let code = Int(digits), (200..<600).contains(code) else {
            fail(.transient("the server sent something that is not an SMTP reply"), context: context)
            return
        }
        let rest = line.dropFirst(3)
        lines.append(String(rest.dropFirst()))
        guard rest.first != "-" else { return }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        if !waiting.isEmpty {
            waiting.removeFirst().succeed(reply)
        } else if early.count < 4 {
            early.append(reply)
        } else {
            fail(.transient("the server sent replies nobody asked for (\(reply.code))"), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.transient("the server closed the connection"), context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(.transient("connection error: \(error)"), context: context)
    }

    private func fail(_ error: SMTPError, context: ChannelHandlerContext) {
        if failure == nil { failure = error }
        let waiters = waiting
        waiting = []
        for promise in waiters { promise.fail(failure ?? error) }
        context.close(promise: nil)
    }
}
