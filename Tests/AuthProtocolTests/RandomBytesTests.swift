// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Testing

/// The one source of random secrets: the count asked for, every position random (a byte the
/// word-at-a-time fill left out would stay 0), and ObjectIds with their time first.
@Suite struct RandomBytesTests {
    @Test(arguments: [0, 1, 7, 8, 9, 16, 32, 33])
    func everyPositionIsFilled(count: Int) {
        #expect(SystemRandomNumberGenerator.bytes(count).count == count)
        guard count > 0 else { return }
        // 200 draws: a position that is always 0 (or always one value) fails; a random one
        // takes one value in all 200 with probability 256^-199.
        var seen = [Set<UInt8>](repeating: [], count: count)
        for _ in 0..<200 {
            for (i, byte) in SystemRandomNumberGenerator.bytes(count).enumerated() { seen[i].insert(byte) }
        }
        #expect(seen.allSatisfy { $0.count > 1 }, "positions that never changed: \(seen.indices.filter { seen[$0].count <= 1 })")
    }

    @Test func objectIdsStartWithTheirTimeAndDiffer() {
        let a = ObjectId(seconds: 0x0102_0304), b = ObjectId(seconds: 0x0102_0304)
        #expect(a.bytes.count == 12 && Array(a.bytes.prefix(4)) == [1, 2, 3, 4])
        #expect(a != b)
    }
}
