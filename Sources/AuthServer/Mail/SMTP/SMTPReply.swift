// SPDX-License-Identifier: Apache-2.0
/// A server's reply: a three-digit code and its lines (RFC 5321 4.2).
struct SMTPReply: Sendable, Equatable {
    let code: Int
    let lines: [String]

    /// 2xx and 3xx.
    var isPositive: Bool { (200..<400).contains(code) }
    /// The text, lines joined, for errors (at most 200 characters: a server's text is not ours
    /// to log whole).
    var text: String { String(lines.joined(separator: " ").prefix(200)) }
}

/// Why a delivery failed, and whether trying again later may work.
struct SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// True for 5xx replies and for what no retry can fix (the server does not offer
    /// STARTTLS, refuses our credentials, or the message is refused); false for 4xx replies,
    /// connection failures and timeouts.
    let permanent: Bool
    let reason: String

    static func transient(_ reason: String) -> SMTPError { SMTPError(permanent: false, reason: reason) }
    static func permanent(_ reason: String) -> SMTPError { SMTPError(permanent: true, reason: reason) }

    /// A negative reply to `command`: 4xx transient, 5xx permanent.
    static func reply(_ reply: SMTPReply, to command: String) -> SMTPError {
        SMTPError(permanent: reply.code >= 500, reason: "\(command): \(reply.code) \(reply.text)")
    }

    var description: String { reason }
}
