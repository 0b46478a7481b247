// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Testing

/// The CBOR decoder against RFC 8949's appendix A, its refusals, and the encoder's round trip.
@Suite struct CBORTests {
    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = text.startIndex
        while i < text.endIndex {
            let j = text.index(i, offsetBy: 2)
            out.append(UInt8(text[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// RFC 8949 appendix A (the definite-length items).
    @Test(arguments: [
        ("00", CBOR.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .negative(0)), ("3863", .negative(99)), ("3903e7", .negative(999)),
        ("f90000", .float(0)), ("f93c00", .float(1)), ("fb3ff199999999999a", .float(1.1)), ("fa47c35000", .float(100_000)),
        ("f4", .boolean(false)), ("f5", .boolean(true)), ("f6", .null), ("f7", .undefined), ("f0", .simple(16)),
        ("f8ff", .simple(255)), ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))), ("40", .bytes([])),
        ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")),
        ("62c3bc", .text("ü")), ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("a0", .map([])), ("a201020304", .map([.init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", .map([.init(.text("a"), .unsigned(1)), .init(.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
    ])
    func rfc8949Vectors(encoded: String, item: CBOR) throws {
        #expect(try CBORDecoder.decode(Self.hex(encoded)) == item)
    }

    @Test(arguments: [
        ("5f42010243030405ff", "indefinite lengths"), ("9f018202039f0405ffff", "indefinite lengths"),
        ("1c", "reserved additional information"), ("ff", "a break outside"), ("18", "ends inside"),
        ("5a00010000", "runs past the end"), ("9bffffffffffffffff", "runs past the input"),
        ("bbffffffffffffffff", "runs past the input"), ("a201020103", "repeats a key"), ("62c328", "not UTF-8"),
        ("0000", "1 bytes after the item"), ("f817", "below 32"),
    ])
    func refusals(encoded: String, reason: String) {
        do {
            _ = try CBORDecoder.decode(Self.hex(encoded))
            Issue.record("\(encoded) decoded")
        } catch {
            #expect(error.message.contains(reason), "\(encoded): \(error)")
        }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() {
        let deep = [UInt8](repeating: 0x81, count: CBORDecoder.maxDepth + 1) + [0x00]
        #expect(throws: CBORError.self) { try CBORDecoder.decode(deep) }
        let fine = [UInt8](repeating: 0x81, count: CBORDecoder.maxDepth) + [0x00]
        #expect((try? CBORDecoder.decode(fine)) != nil)
    }

    @Test func aPrefixEndsWhereItsItemEnds() throws {
        let bytes = Self.hex("a1016161" + "a0" + "ff")
        let (first, end) = try CBORDecoder.decodePrefix(bytes[...])
        #expect(first == .map([.init(.unsigned(1), .text("a"))]) && end == 4)
        let (second, after) = try CBORDecoder.decodePrefix(bytes[end...])
        #expect(second == .map([]) && after == 5)
    }

    @Test func theEncoderWritesShortestFormsThatDecodeBack() throws {
        let items: [CBOR] = [
            .integer(0), .integer(23), .integer(24), .integer(255), .integer(256), .integer(65_536), .integer(Int64.max),
            .integer(-1), .integer(-25), .integer(Int64.min), .bytes(Array(repeating: 7, count: 300)), .text(String(repeating: "é", count: 40)),
            .map([.init(.integer(1), .integer(2)), .init(.integer(3), .integer(-7)), .init(.integer(-2), .bytes([1, 2]))]),
            .array([.boolean(true), .null, .undefined, .float(1.5), .tagged(24, .bytes([0]))]), .simple(16), .simple(200),
        ]
        for item in items { #expect(try CBORDecoder.decode(CBOREncoder.encode(item)) == item, "\(item)") }
        #expect(CBOREncoder.encode(.integer(24)) == [0x18, 24])
        #expect(CBOREncoder.encode(.integer(-7)) == [0x26])
        #expect(CBOREncoder.encode(.integer(500)) == [0x19, 0x01, 0xf4])
        #expect(CBOR.integer(Int64.min).integerValue == Int64.min && CBOR.negative(UInt64.max).integerValue == nil)
    }
}
