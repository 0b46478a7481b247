// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation

/// One mail as it goes over SMTP: the envelope and an RFC 5322 message of two parts, text
/// and HTML, each base64 (so every line is 7-bit and at most 76 characters, and none starts
/// with a dot).
struct MailMessage: Sendable, Equatable {
    let from: MailAddress
    let to: MailAddress
    let subject: String
    let text: String
    let html: String
    /// `<random@domain>`, the same on every delivery attempt (a receiver can drop a repeat).
    let messageId: String
    /// Unix seconds.
    let date: Int64

    /// The message: headers, a blank line, the body; lines end with CRLF.
    var rendered: String {
        let boundary =
            "authsh-"
            + String(
                messageId.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }
                    .map(Character.init)
            ).prefix(40)
        var lines = [
            "From: \(from.header)",
            "To: \(to.header)",
            "Subject: \(MailHeader.text(subject))",
            "Date: \(MailHeader.date(date))",
            "Message-ID: \(messageId)",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += ["--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(Self.crlf(body))
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Line breaks as CRLF.
    static func crlf(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
    }

    static func base64Lines(_ text: String) -> [String] {
        let encoded = Array(Base64.encode(Array(text.utf8)).utf8)
        return stride(from: 0, to: encoded.count, by: 76).map {
            String(decoding: encoded[$0..<min($0 + 76, encoded.count)], as: UTF8.self)
        }
    }

    /// The message as SMTP `DATA` sends it (RFC 5321 4.5.2): a line starting with a dot gets
    /// another, and the terminating `.` line follows.
    var dotStuffed: String { Self.dotStuffed(rendered) }

    /// `message` (CRLF lines) as `DATA` sends it.
    static func dotStuffed(_ message: String) -> String {
        var lines = message.components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        return lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n") + "\r\n.\r\n"
    }
}
