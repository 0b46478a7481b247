// SPDX-License-Identifier: Apache-2.0
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
        if bytes.withContiguousStorageIfAvailable({ encode(buffer: $0, urlSafe: urlSafe, appendingTo: &out) }) == nil {
            Array(bytes).withUnsafeBufferPointer { encode(buffer: $0, urlSafe: urlSafe, appendingTo: &out) }
        }
    }

    /// The encoder proper: whole 3-byte groups, then the 1 or 2 bytes left.
    @usableFromInline
    static func encode(buffer input: UnsafeBufferPointer<UInt8>, urlSafe: Bool, appendingTo out: inout [UInt8]) {
        let groups = input.count / 3, rest = input.count % 3
        let length = groups * 4 + (rest == 0 ? 0 : urlSafe ? rest + 1 : 4)
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: length))
        (urlSafe ? url : standard).withUnsafeBufferPointer { table in
            out.withUnsafeMutableBufferPointer { output in
                var j = start
                for g in 0..<groups {
                    let i = g * 3
                    let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    output[j] = table[Int(n >> 18 & 63)]
                    output[j + 1] = table[Int(n >> 12 & 63)]
                    output[j + 2] = table[Int(n >> 6 & 63)]
                    output[j + 3] = table[Int(n & 63)]
                    j += 4
                }
                guard rest > 0 else { return }
                let i = groups * 3
                let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                output[j] = table[Int(n >> 18 & 63)]
                output[j + 1] = table[Int(n >> 12 & 63)]
                if rest == 2 { output[j + 2] = table[Int(n >> 6 & 63)] }
                if !urlSafe {
                    if rest == 1 { output[j + 2] = UInt8(ascii: "=") }
                    output[j + 3] = UInt8(ascii: "=")
                }
            }
        }
    }

    /// Decodes either alphabet, padded or not; nil if a character is not base64.
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }

    /// Decodes the text in `bytes` (UTF-8), either alphabet, padded or not; nil if a byte is
    /// not base64.
    @inlinable
    public static func decode<C: Collection>(_ bytes: C) -> [UInt8]? where C.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// Each byte's 6-bit value in either alphabet; 0xFF for every other byte (`=` included:
    /// padding is only allowed at the end, which ``decode(buffer:)`` strips first).
    @usableFromInline static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in standard.enumerated() { values[Int(byte)] = UInt8(value) }
        values[Int(UInt8(ascii: "-"))] = 62
        values[Int(UInt8(ascii: "_"))] = 63
        return values
    }()

    /// The decoder proper: whole 4-character groups, then the 2 or 3 characters left.
    @usableFromInline
    static func decode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var end = input.count
        while end > 0, input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        guard end % 4 != 1 else { return nil }  // a lone trailing character
        return values.withUnsafeBufferPointer { table -> [UInt8]? in
            var out = [UInt8]()
            out.reserveCapacity(end / 4 * 3 + 2)
            var i = 0
            while i + 4 <= end {
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                guard a | b | c | d < 64 else { return nil }
                let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                out.append(UInt8(truncatingIfNeeded: n >> 16))
                out.append(UInt8(truncatingIfNeeded: n >> 8))
                out.append(UInt8(truncatingIfNeeded: n))
                i += 4
            }
            guard i < end else { return out }
            let a = table[Int(input[i])], b = table[Int(input[i + 1])]
            let c = end - i == 3 ? table[Int(input[i + 2])] : 0
            guard a | b | c < 64 else { return nil }
            let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            if end - i == 3 { out.append(UInt8(truncatingIfNeeded: n >> 8)) }
            return out
        }
    }
}
