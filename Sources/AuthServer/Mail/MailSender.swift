// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging
import ServiceLifecycle

/// Delivers the queue: each mail leased by one instance at a time, tried again with back-off
/// after a temporary failure, given up after a permanent one (the reason kept) or after
/// ``DeliveryPolicy/giveUpAfter`` seconds.
///
/// A mail is marked delivered only after the server accepted its content (250 after DATA).
/// A process that dies between the two leaves it leased; once the lease ends it is sent again:
/// at most one duplicate per such crash, with the same `Message-ID`, so a receiver can drop
/// it. A process that dies before delivery loses nothing: the mail waits in the database.
final class MailSender: Service, Sendable {
    /// When to try again and when to stop.
    typealias DeliveryPolicy = RetryPolicy

    let store: any MailQueueStore
    let transport: any MailTransport
    let clock: ServerClock
    let policy: DeliveryPolicy
    let logger: Logger
    let metrics: ServerMetrics?
    private let worker: QueueWorker<QueuedMail>

    init(
        store: any MailQueueStore, transport: any MailTransport, clock: ServerClock, policy: DeliveryPolicy, logger: Logger,
        metrics: ServerMetrics? = nil
    ) {
        self.store = store
        self.metrics = metrics
        self.transport = transport
        self.clock = clock
        self.policy = policy
        self.logger = logger
        let rows = QueueWorker<QueuedMail>.Rows(
            leaseDue: { now, until in try await store.leaseDueMail(now: now, leaseUntil: until, limit: 1).first },
            lease: { id, now, until in try await store.leaseMail(id: id, now: now, leaseUntil: until) },
            finish: { mail, failed, reason, at in
                try await store.finishMail(id: mail.id, attempt: mail.attempts, state: failed ? .failed : .sent, error: reason, at: at)
            },
            retry: { mail, reason, next in try await store.retryMail(id: mail.id, attempt: mail.attempts, error: reason, next: next) })
        worker = QueueWorker(
            "mail", rows: rows, clock: clock, policy: policy, logger: logger,
            work: { mail in await Self.deliver(mail, over: transport) },
            report: { mail, report in
                let metadata: Logger.Metadata = [
                    "app": "\(mail.appId)", "kind": "\(mail.kind)", "mail": "\(mail.id)", "attempt": "\(mail.attempts)",
                ]
                switch report {
                case .done:
                    metrics?.mailDelivery("sent")
                    logger.info("mail delivered", metadata: metadata)
                case .gaveUp(let reason):
                    metrics?.mailDelivery("failed")
                    logger.warning("mail given up", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                case .retried(let reason):
                    metrics?.mailDelivery("retried")
                    logger.notice("mail delivery failed; will try again", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                }
            })
    }

    /// A mail was queued: delivered now when delivery is local (the dev outbox: no background
    /// loop then, so nothing else can take it first), else the sender wakes.
    func submitted(_ id: String) async {
        guard transport.isLocal else { return worker.signal() }
        await worker.workNow(id)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.worker.run() }
    }

    /// Delivers every mail due now.
    func deliverDue() async { await worker.workDue() }

    /// One delivery attempt of a leased mail: delivered once the server accepted its content;
    /// a permanent SMTP failure is given up, a temporary one tried again.
    private static func deliver(_ mail: QueuedMail, over transport: any MailTransport) async -> QueueWorker<QueuedMail>.Outcome {
        guard let message = (try? EJSON(parsing: mail.content)).flatMap(OutboxMessage.init(ejson:)) else {
            return .failed("unreadable queue entry")
        }
        do throws(SMTPError) {
            try await transport.deliver(message, app: mail.appId, messageId: mail.messageId, createdAt: mail.createdAt)
            return .done
        } catch {
            return error.permanent ? .failed(error.reason) : .retry(error.reason)
        }
    }
}

extension QueuedMail: QueuedJob {}
