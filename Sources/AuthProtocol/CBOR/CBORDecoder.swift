// SPDX-License-Identifier: Apache-2.0
/// Why bytes are not the CBOR item expected: what was wrong, and where.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The byte offset in the input.
    public var offset: Int
    public var description: String { "CBOR: \(message) at byte \(offset)" }
}

/// Reads CBOR (RFC 8949) as WebAuthn uses it, refusing what it does not: indefinite lengths
/// (CTAP2's canonical form has none), maps with a repeated key, text that is not UTF-8, nesting
/// deeper than ``maxDepth``, and any length that runs past the input. Every failure is a
/// ``CBORError``, never a crash: the input comes from a browser, that is from anyone.
public enum CBORDecoder {
    /// Deeper nesting is refused (a COSE key is 2 deep; an attestation object 3).
    public static let maxDepth = 16

    /// The one item that `bytes` holds, all of it.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, end) = try decodePrefix(bytes[...])
        guard end == bytes.count else { throw CBORError(message: "\(bytes.count - end) bytes after the item", offset: end) }
        return item
    }

    /// The first item of `bytes`, and the index where it ends (authenticator data holds a COSE
    /// key followed by extensions, with no length between).
    public static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (CBOR, Int) {
        var reader = Reader(bytes: bytes, position: bytes.startIndex)
        let item = try reader.item(depth: 0)
        return (item, reader.position)
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var position: Int

        func fail(_ message: String, at offset: Int? = nil) -> CBORError {
            CBORError(message: message, offset: (offset ?? position) - bytes.startIndex)
        }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard position < bytes.endIndex else { throw fail("the input ends inside an item") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.endIndex - position) else {
                throw fail("a length of \(count) runs past the end of the input")
            }
            let start = position
            position += Int(count)
            return bytes[start..<position]
        }

        /// The argument of an initial byte's additional information.
        mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24: return UInt64(try byte())
            case 25, 26, 27:
                var value: UInt64 = 0
                for b in try take(1 << UInt64(info - 24)) { value = value << 8 | UInt64(b) }
                return value
            case 31: throw fail("indefinite lengths are not used by WebAuthn", at: start)
            default: throw fail("reserved additional information \(info)", at: start)
            }
        }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            let start = position
            guard depth <= CBORDecoder.maxDepth else { throw fail("nested deeper than \(CBORDecoder.maxDepth)") }
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1f
            if major == 7 { return try simple(info, at: start) }
            let n = try argument(info, at: start)
            switch major {
            case 0: return .unsigned(n)
            case 1: return .negative(n)
            case 2: return .bytes(Array(try take(n)))
            case 3:
                let raw = try take(n)
                guard let text = String(validating: raw, as: UTF8.self) else { throw fail("text that is not UTF-8", at: start) }
                return .text(text)
            case 4:
                // Each item takes a byte at least: a count past the input is refused before any allocation.
                guard n <= UInt64(bytes.endIndex - position) else { throw fail("an array of \(n) items runs past the input", at: start) }
                var items: [CBOR] = []
                items.reserveCapacity(Int(n))
                for _ in 0..<n { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard n <= UInt64(bytes.endIndex - position) / 2 else { throw fail("a map of \(n) pairs runs past the input", at: start) }
                var pairs: [CBOR.Pair] = []
                var keys = Set<CBOR>()
                for _ in 0..<n {
                    let keyStart = position
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key).inserted else { throw fail("a map repeats a key", at: keyStart) }
                    pairs.append(CBOR.Pair(key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            default:  // 6
                return .tagged(n, try item(depth: depth + 1))
            }
        }

        mutating func simple(_ info: UInt8, at start: Int) throws(CBORError) -> CBOR {
            switch info {
            case 20: return .boolean(false)
            case 21: return .boolean(true)
            case 22: return .null
            case 23: return .undefined
            case 24:
                let value = try byte()
                guard value >= 32 else { throw fail("a simple value of two bytes below 32", at: start) }
                return .simple(value)
            case 25: return .float(Double(Float16(bitPattern: UInt16(try argument(25, at: start)))))
            case 26: return .float(Double(Float(bitPattern: UInt32(try argument(26, at: start)))))
            case 27: return .float(Double(bitPattern: try argument(27, at: start)))
            case 31: throw fail("a break outside an indefinite length", at: start)
            case 28, 29, 30: throw fail("reserved additional information \(info)", at: start)
            default: return .simple(info)
            }
        }
    }
}
