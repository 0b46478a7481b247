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

    var ejson: EJSON {
        ["to": .string(to), "subject": .string(subject), "body": .string(body), "kind": .string(kind),
         "token": .string(token), "tokenId": .string(tokenId), "link": .string(link), "sentAt": .int64(sentAt)]
    }
}

/// Where the server's emails go.
public protocol Mailer: Sendable {
    func send(_ message: OutboxMessage, app: String) async
}

/// Dev mode: messages are kept in memory, readable through the dev API.
public final class DevOutbox: Mailer {
    private let messages = Mutex<[String: [OutboxMessage]]>([:])
    /// Messages kept per app; the oldest go first.
    let limit = 1000

    public init() {}

    public func send(_ message: OutboxMessage, app: String) async {
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
    let logger: Logger

    func send(_ message: OutboxMessage, app: String) async {
        logger.warning("email not delivered: no mail delivery is configured",
                       metadata: ["app": "\(app)", "kind": "\(message.kind)"])
    }
}
