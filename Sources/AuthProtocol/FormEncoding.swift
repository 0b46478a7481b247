// SPDX-License-Identifier: Apache-2.0
/// `application/x-www-form-urlencoded` (also a URL's query string and the fragment of the
/// redirect flow's answer): OAuth 2.0 token requests, authorize URLs, callbacks.
public enum FormEncoding {
    /// `k=v&k2=v2`, every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) percent-encoded.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// One component, percent-encoded (a space is `%20`, which every decoder accepts).
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 15)]))
            }
        }
        return out
    }

    /// The fields of `k=v&...` in order (`+` is a space); nil when a `%` escape is malformed
    /// or a value is not UTF-8. Split on the bytes, not on characters: a body of long tokens
    /// (a refresh) costs a pass over its bytes.
    public static func decode(_ text: some StringProtocol) -> [(String, String)]? {
        decode(bytes: Array(text.utf8))
    }

    /// ``decode(_:)`` of a body's bytes, read once (a refresh's form is mostly its 600-byte token).
    public static func decode(bytes: [UInt8]) -> [(String, String)]? {
        var out: [(String, String)] = []
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard let key = unescape(pair[..<equals]),
                let value = unescape(equals < pair.endIndex ? pair[(equals + 1)...] : [])
            else { return nil }
            out.append((key, value))
        }
        return out
    }

    /// The first value of `key` in `fields`.
    public static func value(_ key: String, in fields: [(String, String)]) -> String? {
        fields.first(where: { $0.0 == key })?.1
    }

    static func unescape(_ text: ArraySlice<UInt8>) -> String? {
        // Nothing escaped (a token, most values): the bytes as they are.
        if !text.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) {
            return String(validating: text, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var it = text.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "+") {
                bytes.append(32)
            } else if b == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
                bytes.append(h << 4 | l)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
