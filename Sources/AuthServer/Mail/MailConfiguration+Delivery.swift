// SPDX-License-Identifier: Apache-2.0
extension MailConfiguration {
    /// How the queue delivers with this configuration: a lease longer than one attempt can
    /// take (connecting, then twelve replies: greeting, EHLO, STARTTLS, EHLO, AUTH LOGIN's
    /// three, MAIL, RCPT, DATA, the message, and one to spare).
    var deliveryPolicy: MailSender.DeliveryPolicy {
        MailSender.DeliveryPolicy(
            retryDelays: retryDelaysSeconds, giveUpAfter: giveUpAfterSeconds,
            lease: connectTimeoutSeconds + 12 * commandTimeoutSeconds + 10)
    }
}
