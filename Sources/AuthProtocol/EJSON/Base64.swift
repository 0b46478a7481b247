/// Base64 (RFC 4648), standard and URL-safe alphabets, without Foundation.
public enum Base64 {
    @usableFromInline static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    @usableFromInline static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes; `urlSafe` uses `-_` and no padding (JWT style).
    public static func encode<C: Collection>(_ bytes: C, urlSafe: Bool = false) -> String where C.Element == UInt8 {
        var out = [UInt8]()
        encode(bytes, urlSafe: urlSafe, appendingTo: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out` (for callers that build a larger text, such as
    /// a JWT, without an intermediate string).
    @inlinable
    public static func encode<C: Collection>(_ bytes: C, urlSafe: Bool = false, appendingTo out: inout [UInt8])
    where C.Element == UInt8 {
        let table = urlSafe ? url : standard
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let a = iterator.next() {
            let b = iterator.next(), c = b == nil ? nil : iterator.next()
            let n = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            if b != nil { out.append(table[Int(n >> 6 & 63)]) } else if !urlSafe { out.append(UInt8(ascii: "=")) }
            if c != nil { out.append(table[Int(n & 63)]) } else if !urlSafe { out.append(UInt8(ascii: "=")) }
            if c == nil { break }
        }
    }

    /// Decodes either alphabet, padded or not; nil if a character is not base64.
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }

    /// Decodes the text in `bytes` (UTF-8), either alphabet, padded or not; nil if a byte is
    /// not base64.
    @inlinable
    public static func decode<C: Collection>(_ bytes: C) -> [UInt8]? where C.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var padding = false
        for c in bytes {
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
