/// Base64 (RFC 4648), standard and URL-safe alphabets, without Foundation.
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes; `urlSafe` uses `-_` and no padding (JWT style).
    public static func encode<C: Collection>(_ bytes: C, urlSafe: Bool = false) -> String where C.Element == UInt8 {
        let table = urlSafe ? url : standard
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], table[Int(n & 63)]]
            i += 3
        }
        let rest = input.count - i
        if rest > 0 {
            var n = UInt32(input[i]) << 16
            if rest == 2 { n |= UInt32(input[i + 1]) << 8 }
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)]]
            if rest == 2 { out.append(table[Int(n >> 6 & 63)]) }
            if !urlSafe { out += Array(repeating: UInt8(ascii: "="), count: 3 - rest) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes either alphabet, padded or not; nil if a character is not base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var out = [UInt8]()
        var acc: UInt32 = 0
        var bits = 0
        var padding = false
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="): padding = true; continue
            default: return nil
            }
            if padding { return nil }
            acc = acc << 6 | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        if bits >= 6 { return nil }  // a lone trailing character
        return out
    }
}
