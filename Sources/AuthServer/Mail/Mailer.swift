// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging
import Synchronization

/// One email the server sent (or, in dev mode, put in the outbox).
public struct OutboxMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var body: String
    /// `confirm` or `reset` (the server's links), or `plugin` (`context.email.send`; no token or link).
    public var kind: String
    public var token: String
    public var tokenId: String
    public var link: String
    /// Unix seconds.
    public var sentAt: Int64
    /// The HTML part (``MailTemplates`` renders it with the text).
    public var html = ""

    var ejson: EJSON {
        [
            "to": .string(to), "subject": .string(subject), "body": .string(body), "kind": .string(kind),
            "token": .string(token), "tokenId": .string(tokenId), "link": .string(link), "sentAt": .int64(sentAt), "html": .string(html),
        ]
    }
}

extension OutboxMessage {
    /// A message read back from ``ejson`` (the queue's content); nil when it is not one.
    init?(ejson: EJSON) {
        guard case .document(let d) = ejson, let to = d["to"]?.stringValue, let subject = d["subject"]?.stringValue,
            let body = d["body"]?.stringValue, let kind = d["kind"]?.stringValue
        else { return nil }
        let sentAt: Int64 = if case .int64(let t)? = d["sentAt"] { t } else { 0 }
        self.init(
            to: to, subject: subject, body: body, kind: kind, token: d["token"]?.stringValue ?? "",
            tokenId: d["tokenId"]?.stringValue ?? "", link: d["link"]?.stringValue ?? "", sentAt: sentAt,
            html: d["html"]?.stringValue ?? "")
    }
}

/// Where the server's emails go.
public protocol Mailer: Sendable {
    /// Sends `message` (with a queue: queued before this returns, delivered after).
    func send(_ message: OutboxMessage, app: String) async throws
    /// Stores `token` and sends `message`, which carries it, in one transaction.
    func send(_ message: OutboxMessage, app: String, storing token: OneTimeToken, now: Int64, keep: Int) async throws
}

/// Dev mode: messages are kept in memory, readable through the dev API. The queue delivers
/// to it before the request that sent the mail answers.
public final class DevOutbox: MailTransport {
    private let messages = Mutex<[String: [OutboxMessage]]>([:])
    /// Messages kept per app; the oldest go first.
    let limit = 1000

    public init() {}

    var isLocal: Bool { true }

    func deliver(_ message: OutboxMessage, app: String, messageId: String, createdAt: Int64) async throws(SMTPError) {
        keep(message, app: app)
    }

    /// Adds a message (the queue's delivery, and tests).
    public func keep(_ message: OutboxMessage, app: String) {
        messages.withLock {
            $0[app, default: []].append(message)
            if $0[app]!.count > limit { $0[app]!.removeFirst() }
        }
    }

    /// The app's messages, newest last, optionally only to `email` and of `kind`.
    public func messages(app: String, email: String? = nil, kind: String? = nil) -> [OutboxMessage] {
        messages.withLock { $0[app] ?? [] }.filter { m in
            (email == nil || m.to == email) && (kind == nil || m.kind == kind)
        }
    }

    /// Empties the app's outbox.
    public func clear(app: String) {
        _ = messages.withLock { $0.removeValue(forKey: app) }
    }
}

/// Production without SMTP: the message is dropped and a warning is logged (without its link,
/// which holds a secret token).
struct UndeliveredMail: Mailer {
    let store: any UserpassStore
    let logger: Logger

    func send(_ message: OutboxMessage, app: String) async throws {
        logger.warning(
            "email not delivered: no mail delivery is configured (config mail)",
            metadata: ["app": "\(app)", "kind": "\(message.kind)"])
    }

    func send(_ message: OutboxMessage, app: String, storing token: OneTimeToken, now: Int64, keep: Int) async throws {
        try await store.insertToken(token, now: now, keep: keep)
        try await send(message, app: app)
    }
}
