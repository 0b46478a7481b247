// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation

/// What an email address must be to register, and how addresses are compared.
///
/// Emails are compared the way mail is delivered to them, not the way Unicode folds text:
/// ASCII case never matters, and nothing else is folded. (Unicode lowercasing made the
/// Kelvin sign U+212A a `k`, so `\u{212A}elvin@example.com` collided with the holder of
/// `kelvin@example.com`, a different mailbox, and the 409 named that holder's providers.)
enum Emails {
    /// `email` as an identity vouches for it: trimmed, its ASCII letters lowercased and every
    /// other character kept as it is; nil when it is no address (no `@`, or longer than 254
    /// bytes) or holds a character that folds into another (``foldsIntoAnother(_:)``).
    static func vouched(_ email: String) -> String? {
        let e = asciiLowercased(email.trimmingCharacters(in: .whitespaces))
        guard e.utf8.count <= 254, let at = e.firstIndex(of: "@"), at != e.startIndex, e.index(after: at) != e.endIndex,
            !e.unicodeScalars.contains(where: foldsIntoAnother)
        else { return nil }
        return e
    }

    /// `text` with A to Z lowercased and nothing else changed.
    static func asciiLowercased(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append((65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar)
        }
        return String(out)
    }

    /// A character outside ASCII that case folding or compatibility normalization (NFKC)
    /// turns into another: `É`, the Kelvin sign, fullwidth letters, ligatures. An address with
    /// one could be taken for a different one by anything that folds (a database's `lower()`,
    /// a mail system), so it is refused at registration and vouches for nothing.
    static func foldsIntoAnother(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII && scalar.properties.changesWhenNFKCCaseFolded
    }

    /// Checks an address to register: `local@domain`, one `@`, both parts non-empty (local
    /// part at most 64 bytes, the whole at most 254), domain labels non-empty, and no
    /// whitespace, control or invisible formatting characters (bidi overrides, zero-width) nor
    /// `()<>[]\,;:"` anywhere: the address goes into mail headers and is shown to people.
    static func check(_ email: String) throws(ServiceError) {
        func refuse(_ why: String) -> ServiceError {
            ServiceError(.invalidParameter, "email is not a valid address: \(why)")
        }
        guard !email.isEmpty else { throw refuse("it is empty") }
        guard email.utf8.count <= 254 else { throw refuse("it is longer than 254 bytes") }
        for scalar in email.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80..<0xA0).contains(v) { throw refuse("it contains a control character") }
            if scalar.properties.isWhitespace { throw refuse("it contains whitespace") }
            if scalar.properties.generalCategory == .format { throw refuse("it contains an invisible formatting character") }
            if "()<>[]\\,;:\"".unicodeScalars.contains(scalar) { throw refuse("it contains '\(scalar)'") }
            if foldsIntoAnother(scalar) {
                throw refuse(
                    "it contains U+\(String(scalar.value, radix: 16, uppercase: true)), which folds into another character "
                        + "(write the address in lowercase, as it is delivered)")
            }
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw refuse(parts.count == 1 ? "it has no '@'" : "it has more than one '@'") }
        guard !parts[0].isEmpty, parts[0].utf8.count <= 64 else { throw refuse("the part before '@' must be 1 to 64 bytes") }
        guard !parts[1].isEmpty else { throw refuse("it has no domain") }
        guard !parts[1].split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw refuse("the domain has an empty label")
        }
    }
}
