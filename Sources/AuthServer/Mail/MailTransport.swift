// SPDX-License-Identifier: Apache-2.0
/// Where the queue delivers a mail: SMTP, or the dev outbox.
protocol MailTransport: Sendable {
    /// True when delivering is instant and local (the dev outbox): the queue then delivers
    /// before the request that sent the mail answers.
    var isLocal: Bool { get }
    /// Delivers one message.
    /// - Throws: ``SMTPError``, permanent (given up) or not (tried again later).
    func deliver(_ message: OutboxMessage, app: String, messageId: String, createdAt: Int64) async throws(SMTPError)
}

/// Delivery through an SMTP relay (config `mail`).
struct SMTPTransport: MailTransport {
    let client: SMTPClient
    let from: MailAddress

    var isLocal: Bool { false }

    func deliver(_ message: OutboxMessage, app: String, messageId: String, createdAt: Int64) async throws(SMTPError) {
        guard let to = MailAddress(message.to) else { throw .permanent("the recipient is not an address this server sends to") }
        try await client.send(
            MailMessage(
                from: from, to: to, subject: message.subject, text: message.body,
                html: message.html, messageId: messageId, date: createdAt))
    }
}
