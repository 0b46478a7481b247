// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// An IP address as its bytes (4 or 16), parsed the strict way (`inet_pton`: a dotted quad, or
/// an IPv6 address; never `0x7f.1`, `127.1` or `2130706433`), and what kind of address it is
/// for outbound requests.
struct IPAddressBytes: Sendable, Equatable {
    let bytes: [UInt8]

    init?(v4 text: String) {
        var addr = in_addr()
        guard inet_pton(AF_INET, text, &addr) == 1 else { return nil }
        bytes = withUnsafeBytes(of: &addr) { Array($0) }
    }

    init?(v6 text: String) {
        var addr = in6_addr()
        guard inet_pton(AF_INET6, text, &addr) == 1 else { return nil }
        bytes = withUnsafeBytes(of: &addr) { Array($0) }
    }

    /// Either family.
    init?(_ text: String) {
        guard let parsed = Self(v4: text) ?? Self(v6: text) else { return nil }
        self = parsed
    }

    init(raw: [UInt8]) { bytes = raw }

    /// The IPv4 address an IPv6 one carries (`::ffff:a.b.c.d`, `::a.b.c.d`, NAT64
    /// `64:ff9b::a.b.c.d`), judged as that address.
    private var embeddedV4: [UInt8]? {
        guard bytes.count == 16 else { return nil }
        let head = bytes[0..<12]
        if head.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) { return Array(bytes[12...]) }
        if head.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), bytes[12...].contains(where: { $0 != 0 }) {
            return Array(bytes[12...])
        }
        if head.elementsEqual([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]) { return Array(bytes[12...]) }
        return nil
    }

    /// Why a request must not go there (nil: a public address): loopback, link-local (the cloud
    /// metadata address 169.254.169.254 among them), private, shared (CGNAT), unspecified,
    /// multicast, broadcast or reserved.
    var forbiddenKind: String? {
        if let v4 = embeddedV4 { return IPAddressBytes(raw: v4).forbiddenKind }
        if bytes.count == 4 {
            let (a, b) = (bytes[0], bytes[1])
            switch a {
            case 0: return "an unspecified"
            case 10: return "a private"
            case 127: return "a loopback"
            case 100 where (64...127).contains(b): return "a shared (carrier-grade NAT)"
            case 169 where b == 254: return "a link-local"
            case 172 where (16...31).contains(b): return "a private"
            case 192 where b == 168: return "a private"
            case 192 where b == 0 && bytes[2] == 0: return "a reserved"
            case 198 where b == 18 || b == 19: return "a reserved"
            case 224...239: return "a multicast"
            case 240...255: return "a reserved"
            default: return nil
            }
        }
        if bytes.allSatisfy({ $0 == 0 }) { return "an unspecified" }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return "a loopback" }
        if bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80 { return "a link-local" }
        if (bytes[0] & 0xfe) == 0xfc { return "a private (unique local)" }
        if bytes[0] == 0xff { return "a multicast" }
        if bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0xc0 { return "a site-local" }
        return nil
    }

    /// The address as `inet_ntop` writes it.
    var text: String {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        bytes.withUnsafeBytes { raw in _ = inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(cString: buffer)
    }
}
