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
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .string(let s): string(s, into: &out)
        case .int32(let v):
            if mode == .relaxed { out += Array(String(v).utf8) } else { wrapper("$numberInt", String(v), into: &out) }
        case .int64(let v):
            if mode == .relaxed { out += Array(String(v).utf8) } else { wrapper("$numberLong", String(v), into: &out) }
        case .double(let d):
            if mode == .relaxed && d.isFinite {
                out += Array(doubleText(d).utf8)
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
            out += Array("{\"$date\":".utf8)
            wrapper("$numberLong", String(ms), into: &out)
            out.append(UInt8(ascii: "}"))
        case .binary(let subtype, let bytes):
            out += Array("{\"$binary\":{\"base64\":".utf8)
            string(Base64.encode(bytes), into: &out)
            out += Array(",\"subType\":".utf8)
            string(Hex.encode([subtype]), into: &out)
            out += Array("}}".utf8)
        case .decimal128(let s): wrapper("$numberDecimal", s, into: &out)
        case .timestamp(let t, let i):
            out += Array("{\"$timestamp\":{\"t\":\(t),\"i\":\(i)}}".utf8)
        case .regularExpression(let pattern, let options):
            out += Array("{\"$regularExpression\":{\"pattern\":".utf8)
            string(pattern, into: &out)
            out += Array(",\"options\":".utf8)
            string(options, into: &out)
            out += Array("}}".utf8)
        case .minKey: out += Array("{\"$minKey\":1}".utf8)
        case .maxKey: out += Array("{\"$maxKey\":1}".utf8)
        }
    }

    /// Shortest round-trip text; integral values keep `.0` so they read back as doubles.
    static func doubleText(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    private static func wrapper(_ key: String, _ text: String, into out: inout [UInt8]) {
        out += Array("{\"\(key)\":\"".utf8)
        out += Array(text.utf8)
        out += Array("\"}".utf8)
    }

    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
