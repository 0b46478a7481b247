// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Header values that are 7-bit safe and fit in a line (RFC 5322 2.1.1, RFC 2047).
enum MailHeader {
    /// A header value as is when it is printable ASCII and short, else RFC 2047 encoded words
    /// (`=?UTF-8?B?...?=`, each at most 75 characters, whole characters only), folded onto
    /// continuation lines. Controls (CR, LF) never reach the header: they become spaces.
    static func text(_ value: String) -> String {
        let clean = String(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) })
        if clean.unicodeScalars.allSatisfy({ $0.isASCII }) && clean.utf8.count <= 900 && !clean.contains("=?") {
            return clean
        }
        return encodedWords(clean).joined(separator: "\r\n ")
    }

    /// A display name: as is when it is plain words, else encoded.
    static func phrase(_ name: String) -> String {
        let plain = name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0 == " " || $0 == "." || $0 == "-" || ("0"..."9").contains($0))
        }
        return plain && !name.isEmpty ? name : encodedWords(name).joined(separator: " ")
    }

    /// `=?UTF-8?B?...?=` words of at most 75 characters, never splitting a character.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        // 75 - "=?UTF-8?B?".count - "?=".count = 63 base64 characters: 45 bytes.
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static func word(_ bytes: [UInt8]) -> String { "=?UTF-8?B?\(Base64.encode(bytes))?=" }

    /// RFC 5322 3.3 date: `Wed, 25 Nov 2026 02:30:00 +0000`.
    static func date(_ unixSeconds: Int64) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let seconds = unixSeconds - days * 86_400
        let (year, month, day) = ISODate.civilFromDays(days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(day) \(months[Int(month) - 1]) \(year) \(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)) +0000"
    }
}
