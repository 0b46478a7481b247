// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// The mailer of a server that delivers: each mail is written to the database's queue before
/// the request answers (with the token it carries, in one transaction), then delivered by
/// ``MailSender``, on this instance or any other sharing the database.
final class MailQueue: Mailer {
    let store: any MailQueueStore & UserpassStore
    let sender: MailSender
    let clock: ServerClock
    /// The domain of `Message-ID`s (the `From` address's).
    let domain: String
    /// Dev mode with SMTP: every queued mail is also kept here, so the dev API reads it as
    /// without SMTP (docs/protocol/server-contract.md section 3: "the dev outbox still records it").
    let devCopy: DevOutbox?

    init(store: any MailQueueStore & UserpassStore, sender: MailSender, clock: ServerClock, domain: String, devCopy: DevOutbox? = nil) {
        self.store = store
        self.sender = sender
        self.clock = clock
        self.domain = domain
        self.devCopy = devCopy
    }

    func send(_ message: OutboxMessage, app: String) async throws {
        let mail = queued(message, app: app)
        try await store.enqueueMail(mail)
        devCopy?.keep(message, app: app)
        await sender.submitted(mail.id)
    }

    func send(_ message: OutboxMessage, app: String, storing token: OneTimeToken, now: Int64, keep: Int) async throws {
        let mail = queued(message, app: app)
        try await store.insertToken(token, now: now, keep: keep, mail: mail)
        devCopy?.keep(message, app: app)
        await sender.submitted(mail.id)
    }

    private func queued(_ message: OutboxMessage, app: String) -> QueuedMail {
        let now = clock.now
        return QueuedMail(
            id: Secrets.randomHex(bytes: 12), appId: app, kind: message.kind, recipient: message.to,
            content: message.ejson.encodedString(.canonical), messageId: "<\(Secrets.randomHex(bytes: 16))@\(domain)>",
            createdAt: now, nextAttempt: now)
    }
}
