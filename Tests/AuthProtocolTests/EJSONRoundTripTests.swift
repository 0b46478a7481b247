// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import PropertyBased
import Testing

/// Every EJSON value, strings from anywhere in them included, reads back as itself from its
/// canonical text, and as nothing more: a string never ends early or adds a key.
@Suite(.timeLimit(.minutes(5))) struct EJSONRoundTripTests {
    /// Strings with the characters that need escaping, quotes and braces among them.
    static let strings = Gen.oneOf(
        Gen.character(in: "\u{0}"..."\u{7F}").string(of: 0...12),
        Gen.character(in: "\u{0}"..."\u{2FF}").string(of: 0...6),
        Gen.element(of: ["\"}", "\",\"role\":\"admin", "\\", "\u{2028}", "😀", "\u{FEFF}", "{\"$oid\":\"x\"}"]).map { $0 ?? "" }
    )

    /// A value of type `kind` (0...16) built from `seed`, with `text` wherever a string goes.
    static func value(kind: Int, seed: UInt64, text: String, depth: Int = 0) -> EJSON {
        let n = Int64(bitPattern: seed &* 0x9E37_79B9_7F4A_7C15)
        switch kind % 17 {
        case 0: return .null
        case 1: return .bool(seed & 1 == 0)
        case 2: return .int32(Int32(truncatingIfNeeded: n))
        case 3: return .int64(n)
        case 4: return .double(Double(bitPattern: UInt64(bitPattern: n)).isNaN ? 0.5 : Double(bitPattern: UInt64(bitPattern: n)))
        case 5: return .string(text)
        case 6: return .objectId(ObjectId(hex: String(repeating: "ab", count: 12))!)
        case 7: return .date(n / 1000)
        case 8: return .binary(subtype: UInt8(truncatingIfNeeded: seed), bytes: Array(text.utf8))
        case 9: return .decimal128(text)
        case 10: return .timestamp(seconds: UInt32(truncatingIfNeeded: seed), increment: UInt32(truncatingIfNeeded: seed >> 32))
        case 11: return .regularExpression(pattern: text, options: text)
        case 12: return .minKey
        case 13: return .maxKey
        case 14: return .double(seed & 1 == 0 ? .infinity : -.infinity)
        case 15 where depth < 3:
            return .array(
                (0..<Int(seed % 4)).map {
                    value(kind: Int(truncatingIfNeeded: seed >> UInt64(8 * $0)) & 0xF, seed: seed >> 1, text: text, depth: depth + 1)
                })
        default:
            guard depth < 3 else { return .string(text) }
            var doc = EJSONDocument()
            doc[text] = value(kind: Int(seed % 15), seed: seed >> 3, text: text, depth: depth + 1)
            doc["k" + text] = .string(text)
            return .document(doc)
        }
    }

    @Test func everyTypeReadsBackAsItself() async {
        await propertyCheck(count: 2000, input: Gen.int(in: 0...16), Gen<UInt64>.value(in: 0...UInt64.max), Self.strings) { kind, seed, text in
            let original = Self.value(kind: kind, seed: seed, text: text)
            let encoded = original.encoded(.canonical)
            let parsed = try? EJSON(parsing: encoded)
            #expect(parsed == original, "\(original) wrote \(String(decoding: encoded, as: UTF8.self))")
            // Inside a document, the value is one field and only one.
            let wrapped = EJSON.document(["v": original, "role": "user"])
            #expect((try? EJSON(parsing: wrapped.encoded()))?["role"] == "user")
        }
    }

    @Test func aDecimalsTextNeverBecomesJSON() throws {
        let hostile = EJSON.document(["d": .decimal128(#"1"},"role":"admin","x":{"y":"1"#), "role": "user"])
        let parsed = try EJSON(parsing: hostile.encoded())
        #expect(parsed == hostile)
        #expect(parsed.documentValue?.keys == ["d", "role"])
    }
}
