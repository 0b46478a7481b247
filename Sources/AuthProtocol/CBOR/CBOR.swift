// SPDX-License-Identifier: Apache-2.0
/// A CBOR data item (RFC 8949), as much of CBOR as WebAuthn uses: what authenticators send
/// (attestation objects, COSE keys, extensions) and what authsh's software authenticator makes.
public indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    /// The integer `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// A map, its pairs in the order they were read or are to be written.
    case map([Pair])
    case tagged(UInt64, CBOR)
    case boolean(Bool)
    case null
    case undefined
    /// Another simple value (0 to 19, 32 to 255).
    case simple(UInt8)
    case float(Double)

    /// One entry of a map.
    public struct Pair: Sendable, Hashable {
        public var key: CBOR
        public var value: CBOR
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// An integer item: unsigned when `value` is not negative.
    public static func integer(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value of an integer item that fits an Int64, else nil.
    public var integerValue: Int64? {
        switch self {
        case .unsigned(let n) where n <= UInt64(Int64.max): Int64(n)
        case .negative(let n) where n <= UInt64(Int64.max): -1 - Int64(n)
        default: nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case .text(let t) = self { return t }
        return nil
    }

    /// The value of `key` in a map (the first, should a map hold it twice), else nil.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The value of integer `key` in a map (COSE keys are integers).
    public subscript(key: Int64) -> CBOR? { self[.integer(key)] }

    /// The value of text `key` in a map.
    public subscript(key: String) -> CBOR? { self[.text(key)] }
}
