// SPDX-License-Identifier: Apache-2.0
/// Text that came from outside (a user's email or external id, a client's user agent, an IdP's
/// profile), made safe to print on an operator's terminal. A terminal obeys what it is sent:
/// ESC starts a control sequence (move the cursor, retitle the window, rewrite what is on the
/// screen), BEL rings, C1 controls act as ESC on some terminals, and the bidi overrides and
/// isolates (U+202A to U+202E, U+2066 to U+2069) reorder what follows so that one line can read
/// as another.
///
/// Every scalar that is not printable (a control, a format character such as a bidi control or
/// a zero-width joiner, a line or paragraph separator, a private-use, surrogate or unassigned
/// code point) is shown as an escape; everything else, letters of every script included, is
/// kept as it is.
public enum TerminalText {
    /// `text` with each unprintable scalar shown as `\u{XXXX}` (line feeds too, unless
    /// `keepingLines`).
    public static func safe(_ text: String, keepingLines: Bool = false) -> String {
        func escaped(_ scalar: Unicode.Scalar) -> Bool { isUnprintable(scalar) && !(keepingLines && scalar == "\n") }
        guard text.unicodeScalars.contains(where: escaped) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if escaped(scalar) {
                out += "\\u{" + hex(scalar) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// JSON text with each unprintable scalar as a `\uXXXX` escape (a pair of them beyond the
    /// BMP): the same JSON, since such scalars can stand only inside its strings.
    public static func safeJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: isUnprintable) else { return json }
        var out = ""
        for scalar in json.unicodeScalars {
            guard isUnprintable(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let digits = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            }
        }
        return out
    }

    /// Whether `scalar` could act on a terminal or hide what follows, rather than show.
    public static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned: return true
        default: return false
        }
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
