// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct EJSONTests {
    @Test func canonicalWrappersKeepTheirTypes() throws {
        let text =
            #"{"i":{"$numberInt":"5"},"l":{"$numberLong":"5"},"d":{"$numberDouble":"5.0"},"o":{"$oid":"5f1b2c3d4e5f60718293a4b5"},"t":{"$date":{"$numberLong":"1700000000123"}},"b":{"$binary":{"base64":"AQID","subType":"00"}}}"#
        let v = try EJSON(parsing: text)
        #expect(v["i"] == .int32(5))
        #expect(v["l"] == .int64(5))
        #expect(v["d"] == .double(5))
        #expect(v["o"] == .objectId(ObjectId(hex: "5f1b2c3d4e5f60718293a4b5")!))
        #expect(v["t"] == .date(1_700_000_000_123))
        #expect(v["b"] == .binary(subtype: 0, bytes: [1, 2, 3]))
        // And back: canonical output reads as the same value, keys in order.
        #expect(try EJSON(parsing: v.encoded()) == v)
        #expect(v.encodedString().hasPrefix(#"{"i":{"$numberInt":"5"},"l":{"$numberLong":"5"},"d":{"$numberDouble":"5.0"}"#))
    }

    @Test func plainJSONNumbersAreInt64OrDouble() throws {
        #expect(
            try EJSON(parsing: "[1, -2, 1.5, 1e3, 9223372036854775807, 9223372036854775808]")
                == .array([
                    .int64(1), .int64(-2), .double(1.5), .double(1000), .int64(.max), .double(9_223_372_036_854_775_808),
                ]))
    }

    @Test func relaxedForms() throws {
        #expect(try EJSON(parsing: #"{"$date":"1970-01-02T00:00:01.5Z"}"#) == .date(86_401_500))
        #expect(try EJSON(parsing: #"{"$date":"2024-02-29T12:00:00+01:00"}"#) == .date(1_709_204_400_000))
        #expect(
            try EJSON(parsing: #"{"$uuid":"00112233-4455-6677-8899-aabbccddeeff"}"#)
                == .binary(subtype: 4, bytes: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]))
        #expect(try EJSON(parsing: #"{"$numberDouble":"-Infinity"}"#) == .double(-.infinity))
        #expect(EJSON.int32(7).encodedString(.relaxed) == "7")
        #expect(EJSON.double(7).encodedString(.relaxed) == "7.0")
        #expect(ISODate.format(milliseconds: 86_401_500) == "1970-01-02T00:00:01.500Z")
        // ISO 8601's other offsets: `±HHMM` and `±HH` alone; a dangling digit is no offset.
        #expect(ISODate.parse("2024-02-29T12:00:00+0100") == 1_709_204_400_000)
        #expect(ISODate.parse("2024-02-29T12:00:00+01") == 1_709_204_400_000)
        #expect(ISODate.parse("2024-02-29T12:00:00+013") == nil)
        #expect(ISODate.parse("2024-02-29T12:00:00") == nil)
    }

    @Test func stringsEscapesAndUnicode() throws {
        let v = try EJSON(parsing: #""a\"b\\c\n\u00e9\ud83d\ude00""#)
        #expect(v == .string("a\"b\\c\né😀"))
        #expect(try EJSON(parsing: v.encoded()) == v)
        #expect(EJSON.string("\u{1}").encodedString() == #""\u0001""#)
    }

    /// The writer copies unescaped runs whole: escapes at the start, the end, side by side and
    /// between multi-byte characters must all land in place.
    @Test(arguments: [
        ("", #""""#), ("plain", #""plain""#), ("\"", #""\"""#), ("\\\"", #""\\\"""#), ("\"é\"", #""\"é\"""#),
        ("é\n😀\t", #""é\n😀\t""#), ("a\u{1F}b\u{0}", #""a\u001fb\u0000""#), ("end\\", #""end\\""#),
        ("\r\nx", #""\r\nx""#),
    ])
    func stringsRoundTripThroughTheWriter(_ text: String, _ expected: String) throws {
        let encoded = EJSON.string(text).encodedString()
        #expect(encoded == expected)
        #expect(try EJSON(parsing: encoded) == .string(text))
    }

    /// Both alphabets against Foundation, for every length around the 3-byte boundaries.
    @Test func base64MatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let standard = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes) == standard)
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64.encode(bytes, urlSafe: true) == url)
            #expect(Base64.decode(standard) == bytes)
            #expect(Base64.decode(url) == bytes)
        }
    }

    @Test(arguments: [
        ("{\"a\":1,}", "expected a string key"),
        ("{\"a\" 1}", "expected ':'"),
        ("[1 2]", "expected ',' or ']'"),
        ("{\"a\":1} x", "unexpected text after the value"),
        ("01", "leading zero"),
        ("\"abc", "unterminated string"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""),
        ("{\"$oid\":\"xyz\"}", "$oid must be 24 hex digits"),
        ("{\"$numberInt\":\"99999999999\"}", "$numberInt is not a 32-bit integer"),
        ("\"\\ud800\"", "unpaired surrogate"),
        ("", "expected a value, got end of input"),
    ])
    func malformedInputNamesTheProblem(input: String, reason: String) {
        #expect {
            try EJSON(parsing: input)
        } throws: { error in
            (error as? EJSONError)?.reason.contains(reason) == true
        }
    }

    @Test func invalidUTF8AndDeepNestingAreRefused() {
        #expect(throws: EJSONError.self) { try EJSON(parsing: [0x22, 0xff, 0xfe, 0x22]) }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: EJSONError.self) { try EJSON(parsing: deep) }
        #expect(throws: Never.self) { try EJSON(parsing: deep, maxDepth: 200) }
    }

    @Test func objectIdAndBase64() {
        let id = ObjectId(seconds: 0x01020304)
        #expect(id.bytes.prefix(4) == [1, 2, 3, 4])
        #expect(ObjectId(hex: id.hex) == id)
        #expect(ObjectId(hex: "5F1B2C3D4E5F60718293A4B5")?.hex == "5f1b2c3d4e5f60718293a4b5")
        #expect(Base64.encode([0xfb, 0xff], urlSafe: true) == "-_8")
        #expect(Base64.encode([0xfb, 0xff]) == "+/8=")
        #expect(Base64.decode("-_8") == [0xfb, 0xff])
        #expect(Base64.decode("a*b") == nil)
    }

    @Test func serviceErrorBodies() {
        let e = ServiceError(.invalidPassword, "invalid username/password")
        #expect(e.status == 401)
        #expect(e.body.encodedString() == #"{"error":"invalid username/password","error_code":"InvalidPassword"}"#)
        #expect(ServiceError(body: e.body, status: 401) == e)
    }
}

@Suite(.timeLimit(.minutes(5))) struct EJSONDocumentTests {
    @Test(arguments: [3, 16, 17, 200])
    func aRepeatedKeyIsRefusedAndLeavesTheDocumentAsItWas(count: Int) throws {
        let fields = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(throws: EJSONError.self) { try EJSON(parsing: "{\(fields),\"k0\":1}") }
        var doc = try #require(try EJSON(parsing: "{\(fields)}").documentValue)
        doc["k0"] = .int32(-1)
        doc["k\(count / 2)"] = nil
        doc["new"] = .bool(true)
        #expect(doc["k0"] == .int32(-1) && doc["k\(count / 2)"] == nil && doc["new"] == .bool(true))
        #expect(doc["k\(count - 1)"] == .int64(Int64(count - 1)) && doc.count == count)
        #expect(doc.keys.first == "k0" && doc.keys.last == "new")
    }
}
