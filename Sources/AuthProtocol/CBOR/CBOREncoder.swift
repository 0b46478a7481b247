// SPDX-License-Identifier: Apache-2.0
/// Writes CBOR in the shortest form of each length and integer, maps in the order given: what
/// CTAP2's canonical form asks, when the caller gives map keys in its order (for the maps of
/// WebAuthn: shorter keys first, then bytewise).
public enum CBOREncoder {
    public static func encode(_ item: CBOR) -> [UInt8] {
        var out: [UInt8] = []
        write(item, into: &out)
        return out
    }

    private static func head(_ major: UInt8, _ value: UInt64, into out: inout [UInt8]) {
        let m = major << 5
        switch value {
        case 0..<24: out.append(m | UInt8(value))
        case 24...0xff: out += [m | 24, UInt8(value)]
        case 0x100...0xffff: out += [m | 25, UInt8(value >> 8), UInt8(value & 0xff)]
        case 0x1_0000...0xffff_ffff: out.append(m | 26); out += (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        default: out.append(m | 27); out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
    }

    private static func write(_ item: CBOR, into out: inout [UInt8]) {
        switch item {
        case .unsigned(let n): head(0, n, into: &out)
        case .negative(let n): head(1, n, into: &out)
        case .bytes(let b):
            head(2, UInt64(b.count), into: &out)
            out += b
        case .text(let t):
            head(3, UInt64(t.utf8.count), into: &out)
            out += t.utf8
        case .array(let items):
            head(4, UInt64(items.count), into: &out)
            for i in items { write(i, into: &out) }
        case .map(let pairs):
            head(5, UInt64(pairs.count), into: &out)
            for p in pairs {
                write(p.key, into: &out)
                write(p.value, into: &out)
            }
        case .tagged(let tag, let inner):
            head(6, tag, into: &out)
            write(inner, into: &out)
        case .boolean(let b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        case .simple(let v): v < 24 ? out.append(0xe0 | v) : (out += [0xf8, v])
        case .float(let d):
            out.append(0xfb)
            out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: d.bitPattern >> ($0 * 8)) }
        }
    }
}
