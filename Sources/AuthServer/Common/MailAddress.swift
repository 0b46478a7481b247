// SPDX-License-Identifier: Apache-2.0
/// An email address as a header and an SMTP envelope take it: `addr@domain`, or
/// `Display Name <addr@domain>`. Anything that could end a header or a command (CR, LF, NUL,
/// other controls) or smuggle another address (`<`, `>`, `,` in the address) is refused.
struct MailAddress: Sendable, Equatable {
    /// The bare address (the SMTP envelope's).
    let address: String
    /// The display name, if any.
    let name: String?

    init?(_ text: String) {
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return nil }
        let trimmed = text.trimmingSpaces
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let inner = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            let display = String(trimmed[..<open]).trimmingSpaces
            guard Self.isAddress(inner), !display.contains("\"") else { return nil }
            address = inner
            name = display.isEmpty ? nil : display
        } else {
            guard Self.isAddress(trimmed) else { return nil }
            address = trimmed
            name = nil
        }
    }

    /// `local@domain`, ASCII without spaces or the characters that delimit addresses.
    static func isAddress(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), s.utf8.count <= 254 else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && !"<>,;:\"()[]\\".unicodeScalars.contains($0) }
    }

    /// As a header value: the name encoded when it is not plain ASCII (RFC 2047).
    var header: String {
        guard let name else { return address }
        return "\(MailHeader.phrase(name)) <\(address)>"
    }

    /// The domain part (for `Message-ID`).
    var domain: String { String(address.split(separator: "@").last ?? "localhost") }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
