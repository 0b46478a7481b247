// SPDX-License-Identifier: Apache-2.0
extension EJSON {
    /// How ``EJSON/encoded(_:)`` writes numbers and dates.
    public enum Mode: Sendable {
        /// Every number and date in its wrapper (`{"$numberInt":"5"}`): types survive the trip.
        case canonical
        /// Finite numbers as plain JSON numbers (doubles keep a `.0`); other types as canonical.
        case relaxed
    }

    /// The value as UTF-8 JSON text.
    public func encoded(_ mode: Mode = .canonical) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(64)
        EJSONWriter.write(self, mode, into: &out)
        return out
    }

    /// The value as a JSON string.
    public func encodedString(_ mode: Mode = .canonical) -> String {
        String(decoding: encoded(mode), as: UTF8.self)
    }
}

enum EJSONWriter {
    static func write(_ value: EJSON, _ mode: EJSON.Mode, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .string(let s): string(s, into: &out)
        case .int32(let v):
            if mode == .relaxed { out.append(contentsOf: String(v).utf8) } else { wrapper("$numberInt", String(v), into: &out) }
        case .int64(let v):
            if mode == .relaxed { out.append(contentsOf: String(v).utf8) } else { wrapper("$numberLong", String(v), into: &out) }
        case .double(let d):
            if mode == .relaxed && d.isFinite {
                out.append(contentsOf: doubleText(d).utf8)
            } else {
                wrapper("$numberDouble", doubleText(d), into: &out)
            }
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(item, mode, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .document(let doc):
            out.append(UInt8(ascii: "{"))
            for (k, (key, item)) in doc.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(item, mode, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .objectId(let id): wrapper("$oid", id.hex, into: &out)
        case .date(let ms):
            out.append(contentsOf: "{\"$date\":".utf8)
            wrapper("$numberLong", String(ms), into: &out)
            out.append(UInt8(ascii: "}"))
        case .binary(let subtype, let bytes):
            out.append(contentsOf: "{\"$binary\":{\"base64\":".utf8)
            string(Base64.encode(bytes), into: &out)
            out.append(contentsOf: ",\"subType\":".utf8)
            string(Hex.encode([subtype]), into: &out)
            out.append(contentsOf: "}}".utf8)
        case .decimal128(let s): wrapper("$numberDecimal", s, into: &out)
        case .timestamp(let t, let i):
            out.append(contentsOf: "{\"$timestamp\":{\"t\":\(t),\"i\":\(i)}}".utf8)
        case .regularExpression(let pattern, let options):
            out.append(contentsOf: "{\"$regularExpression\":{\"pattern\":".utf8)
            string(pattern, into: &out)
            out.append(contentsOf: ",\"options\":".utf8)
            string(options, into: &out)
            out.append(contentsOf: "}}".utf8)
        case .minKey: out.append(contentsOf: "{\"$minKey\":1}".utf8)
        case .maxKey: out.append(contentsOf: "{\"$maxKey\":1}".utf8)
        }
    }

    /// Shortest round-trip text; integral values keep `.0` so they read back as doubles.
    static func doubleText(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    /// `{"$key":"text"}`. `key` is one of ours; `text` is escaped like any string (a
    /// Decimal128's text comes from outside, and must never end the string early).
    private static func wrapper(_ key: String, _ text: String, into out: inout [UInt8]) {
        out.append(contentsOf: "{\"\(key)\":".utf8)
        string(text, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// A JSON string literal. Runs of bytes that need no escape are copied whole.
    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var start = 0
            for (i, c) in bytes.enumerated() where c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                escape(c, into: &out)
                start = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func escape(_ c: UInt8, into out: inout [UInt8]) {
        out.append(0x5C)
        switch c {
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0..<0x20:
            out.append(contentsOf: "u00".utf8)
            out.append(hex[Int(c >> 4)])
            out.append(hex[Int(c & 15)])
        default: out.append(c)  // " and \
        }
    }
}
