// SPDX-License-Identifier: Apache-2.0
/// A BSON ObjectId: 12 bytes, written as 24 lowercase hex digits.
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 12 bytes.
    public let bytes: [UInt8]

    /// The all-zero id, which the wire protocol uses for "no device".
    public static let zero = ObjectId(unchecked: [UInt8](repeating: 0, count: 12))

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// A new id: 4 bytes of Unix time, then 8 random bytes.
    public init(seconds: UInt32) {
        var b = [UInt8](repeating: 0, count: 4)
        b[0] = UInt8(truncatingIfNeeded: seconds >> 24)
        b[1] = UInt8(truncatingIfNeeded: seconds >> 16)
        b[2] = UInt8(truncatingIfNeeded: seconds >> 8)
        b[3] = UInt8(truncatingIfNeeded: seconds)
        self.bytes = b + SystemRandomNumberGenerator.bytes(8)
    }

    /// Parses 24 hex digits (either case); nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 24, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    /// The 24 lowercase hex digits.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }

    public static func < (a: ObjectId, b: ObjectId) -> Bool {
        a.bytes.lexicographicallyPrecedes(b.bytes)
    }
}

/// Hex digits, both ways.
public enum Hex {
    /// The value of one hex digit, or nil.
    public static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The bytes of hex digits (either case); nil for an odd count or a non-digit.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        for k in stride(from: 0, to: digits.count, by: 2) {
            guard let hi = value(digits[k]), let lo = value(digits[k + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        return bytes
    }

    /// Lowercase hex of these bytes.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
