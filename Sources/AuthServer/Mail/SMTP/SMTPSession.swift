// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOSSL

/// One connection to an SMTP server: commands out, replies in, each reply within the timeout.
struct SMTPSession: Sendable {
    let channel: any Channel
    let replies: SMTPReplyHandler
    let timeout: TimeAmount

    /// Sends `line` (nil: nothing, for the greeting) and waits for the reply.
    func send(_ line: String?) async throws(SMTPError) -> SMTPReply {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: SMTPReply.self)
        let replies = self.replies, channel = self.channel, timeout = self.timeout
        loop.execute {
            replies.expect(promise)
            let deadline = loop.scheduleTask(in: timeout) {
                promise.fail(SMTPError.transient("no reply within \(timeout.nanoseconds / 1_000_000_000) s"))
            }
            promise.futureResult.whenComplete { _ in deadline.cancel() }
            if let line {
                var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
                buffer.writeString(line)
                if !line.hasSuffix("\r\n") { buffer.writeString("\r\n") }
                channel.writeAndFlush(buffer, promise: nil)
            }
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as SMTPError {
            channel.close(promise: nil)
            throw error
        } catch {
            channel.close(promise: nil)
            throw .transient("\(error)")
        }
    }

    /// Sends `line` and requires one of the codes; `name` stands for the line in errors (so
    /// a credential or a message body never appears in one).
    @discardableResult
    func command(_ line: String, name: String? = nil, expect code: Int, or other: Int? = nil) async throws(SMTPError) -> SMTPReply {
        let reply = try await send(line)
        guard reply.code == code || reply.code == other else {
            throw .reply(reply, to: name ?? String(line.prefix(while: { $0 != ":" && $0 != " " })))
        }
        return reply
    }

    /// Waits for a reply without sending (the greeting).
    func expect(_ code: Int, _ what: String) async throws(SMTPError) {
        let reply = try await send(nil)
        guard reply.code == code else { throw .reply(reply, to: what) }
    }

    /// `EHLO`: the extensions the server offers (the reply's lines after the first).
    func hello(_ name: String) async throws(SMTPError) -> [String] {
        Array(try await command("EHLO \(name)", expect: 250).lines.dropFirst())
    }

    /// Puts TLS under the session (after `STARTTLS` was accepted) and waits for the handshake.
    ///
    /// Anything already received after the 220 came in the clear and would be read as the
    /// answers to commands sent under TLS (STARTTLS command injection, RFC 3207 section 5): the
    /// session is refused then.
    func startTLS(_ handler: NIOSSLClientHandler) async throws(SMTPError) {
        let replies = self.replies
        let clean: Bool
        do {
            clean = try await channel.eventLoop.submit { [channel] in
                guard !replies.hasUnread else { return false }
                try channel.pipeline.syncOperations.addHandler(handler, position: .first)
                return true
            }.get()
        } catch {
            throw .transient("STARTTLS: \(error)")
        }
        guard clean else {
            close()
            throw .transient("STARTTLS: the server sent more after its 220, before TLS (refused: it could be injected)")
        }
    }

    func close() { channel.close(promise: nil) }
}
