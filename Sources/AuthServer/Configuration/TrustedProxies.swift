// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// The reverse proxies whose word on the client's address is taken (config `trustedProxies`,
/// `--trusted-proxy`): addresses and CIDR ranges, IPv4 or IPv6.
///
/// A request whose connection comes from one of them is counted (rate limits, back-off, the
/// audit log) against the address in its `X-Forwarded-For`: the rightmost entry that is not a
/// trusted proxy itself, since each proxy appends the address it saw and only the part the
/// trusted proxies appended can be believed (a client can send any `X-Forwarded-For` it
/// likes; everything left of what they appended is the client's own claim). A request from any
/// other address, or one whose header is missing or unreadable where it matters, counts
/// against the connection's address as before. With no trusted proxies the header is ignored.
public struct TrustedProxies: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        /// 4 bytes for IPv4, 16 for IPv6.
        var bytes: [UInt8]
        var prefixBits: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefixBits, i = 0
            while bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if address[i] & mask != bytes[i] & mask { return false }
                bits -= 8
                i += 1
            }
            return true
        }
    }

    private(set) var ranges: [Range] = []

    public var isEmpty: Bool { ranges.isEmpty }

    public init() {}

    /// Parses `ADDRESS` or `ADDRESS/BITS` entries; the error names the first bad one.
    public init(_ entries: [String]) throws(ConfigError) {
        for entry in entries {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.parse(String(parts[0])) else {
                throw ConfigError(key: "trustedProxies", reason: "\"\(entry)\" is not an IP address or CIDR range (10.0.0.0/8, fd00::/8)")
            }
            var bits = bytes.count * 8
            if parts.count == 2 {
                guard let n = Int(parts[1]), (1...bits).contains(n), parts[1].allSatisfy(\.isNumber) else {
                    // Not /0: trusting every address would let every client name its own.
                    throw ConfigError(
                        key: "trustedProxies",
                        reason: "\"\(entry)\": the prefix length must be 1 to \(bits) (a /0 would trust every client to say who it is)")
                }
                bits = n
            }
            ranges.append(Range(bytes: bytes, prefixBits: bits))
        }
    }

    func contains(_ address: [UInt8]) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// True when `peer` is one of the trusted proxies.
    func isTrusted(peer: SocketAddress?) -> Bool {
        guard !ranges.isEmpty, let peer, let bytes = Self.bytes(peer) else { return false }
        return contains(bytes)
    }

    /// The client's address for a request that a trusted proxy sent with these
    /// `X-Forwarded-For` header values, or nil to keep the proxy's.
    func client(forwardedFor headers: [String]) -> SocketAddress? {
        let entries = headers.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { Self.trimmed($0) }
        // Right to left: skip the trusted proxies; the first other address is the client.
        for entry in entries.reversed() {
            guard let host = Self.host(of: entry), let address = try? SocketAddress(ipAddress: host, port: 0),
                let bytes = Self.bytes(address)
            else { return nil }
            if !contains(bytes) { return address }
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> String {
        var s = text
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }

    /// The address of an entry: `1.2.3.4`, `1.2.3.4:567`, `::1` or `[::1]:567`.
    private static func host(of entry: String) -> String? {
        if entry.hasPrefix("[") {
            guard let end = entry.firstIndex(of: "]") else { return nil }
            return String(entry[entry.index(after: entry.startIndex)..<end])
        }
        let colons = entry.count { $0 == ":" }
        if colons == 1 { return String(entry.prefix { $0 != ":" }) }
        return entry.isEmpty ? nil : entry
    }

    static func parse(_ text: String) -> [UInt8]? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        return bytes(address)
    }

    /// The address's bytes; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 bytes.
    static func bytes(_ address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let a):
            var raw = a.address.sin_addr
            return withUnsafeBytes(of: &raw) { Array($0) }
        case .v6(let a):
            var raw = a.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
            return bytes
        case .unixDomainSocket:
            return nil
        }
    }
}
