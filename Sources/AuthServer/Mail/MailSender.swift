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
    struct DeliveryPolicy: Sendable {
        /// Seconds before attempt 2, 3, ...; the last repeats.
        var retryDelays: [Int64] = [5, 30, 120, 600, 1800]
        /// Seconds after queueing when a mail still not delivered is given up.
        var giveUpAfter: Int64 = 86_400
        /// How long a leased mail is left to its instance (longer than one attempt can take).
        var lease: Int64 = 120
        /// How often the queue is read when nothing wakes the sender (other instances' mail,
        /// retries coming due).
        var poll: Duration = .seconds(5)

        func delay(afterAttempt attempts: Int) -> Int64 {
            retryDelays.isEmpty ? 60 : retryDelays[min(max(attempts - 1, 0), retryDelays.count - 1)]
        }
    }

    let store: any AuthStore
    let transport: any MailTransport
    let clock: ServerClock
    let policy: DeliveryPolicy
    let logger: Logger
    let metrics: ServerMetrics?
    private let wake = WakeSignal()

    init(
        store: any AuthStore, transport: any MailTransport, clock: ServerClock, policy: DeliveryPolicy, logger: Logger,
        metrics: ServerMetrics? = nil
    ) {
        self.store = store
        self.metrics = metrics
        self.transport = transport
        self.clock = clock
        self.policy = policy
        self.logger = logger
    }

    /// A mail was queued: delivered now when delivery is local (the dev outbox: no background
    /// loop then, so nothing else can take it first), else the sender wakes.
    func submitted(_ id: String) async {
        guard transport.isLocal else { return wake.signal() }
        let now = clock.now
        do {
            if let mail = try await store.leaseMail(id: id, now: now, leaseUntil: now + policy.lease) { await attempt(mail) }
        } catch {
            logger.error("mail queue unavailable", metadata: ["error": "\(error)"])
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.deliverDue()
                await self.wake.wait(timeout: self.policy.poll)
            }
        }
    }

    /// Delivers every mail due now, each leased just before its attempt (a lease taken for a
    /// batch ran out while the mails before it were sent, and another instance sent it too).
    func deliverDue() async {
        while !Task.isCancelled {
            let now = clock.now
            let leased: [QueuedMail]
            do {
                leased = try await store.leaseDueMail(now: now, leaseUntil: now + policy.lease, limit: 1)
            } catch {
                logger.error("mail queue unavailable", metadata: ["error": "\(error)"])
                return
            }
            guard let mail = leased.first else { return }
            await attempt(mail)
        }
    }

    /// One delivery attempt of a leased mail, and what it leaves in the queue.
    private func attempt(_ mail: QueuedMail) async {
        let metadata: Logger.Metadata = ["app": "\(mail.appId)", "kind": "\(mail.kind)", "mail": "\(mail.id)", "attempt": "\(mail.attempts)"]
        do {
            guard let message = (try? EJSON(parsing: mail.content)).flatMap(OutboxMessage.init(ejson:)) else {
                try await store.finishMail(id: mail.id, attempt: mail.attempts, state: .failed, error: "unreadable queue entry", at: clock.now)
                metrics?.mailDelivery("failed")
                return
            }
            do throws(SMTPError) {
                try await transport.deliver(message, app: mail.appId, messageId: mail.messageId, createdAt: mail.createdAt)
                _ = try? await store.finishMail(id: mail.id, attempt: mail.attempts, state: .sent, error: nil, at: clock.now)
                metrics?.mailDelivery("sent")
                logger.info("mail delivered", metadata: metadata)
            } catch {
                let now = clock.now
                if error.permanent {
                    try await store.finishMail(id: mail.id, attempt: mail.attempts, state: .failed, error: error.reason, at: now)
                    metrics?.mailDelivery("failed")
                    logger.warning("mail given up", metadata: metadata.merging(["reason": "\(error.reason)"]) { $1 })
                } else if now - mail.createdAt >= policy.giveUpAfter {
                    let reason = "gave up after \(mail.attempts) attempts in \(policy.giveUpAfter) s: \(error.reason)"
                    try await store.finishMail(id: mail.id, attempt: mail.attempts, state: .failed, error: reason, at: now)
                    metrics?.mailDelivery("failed")
                    logger.warning("mail given up", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                } else {
                    try await store.retryMail(
                        id: mail.id, attempt: mail.attempts, error: error.reason, next: now + policy.delay(afterAttempt: mail.attempts))
                    metrics?.mailDelivery("retried")
                    logger.notice("mail delivery failed; will try again", metadata: metadata.merging(["reason": "\(error.reason)"]) { $1 })
                }
            }
        } catch {
            // The store failed: the lease runs out and the mail is tried again.
            logger.error("mail queue unavailable", metadata: ["error": "\(error)"])
        }
    }
}
