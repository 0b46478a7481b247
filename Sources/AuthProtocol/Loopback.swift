// SPDX-License-Identifier: Apache-2.0
/// Which hosts and URLs stay on this machine: the one rule for what may travel without TLS
/// (the server's dev checks, the admin channel, loopback redirects, and the clients that refuse
/// to send an admin key in clear).
///
/// A host is this machine only when it is written as every parser reads it the same way:
///
/// - an IPv4 literal of 127.0.0.0/8 in plain dotted decimal (four parts of 1 to 3 digits, no
///   leading zero, each at most 255): `127.0.0.1`, `127.5.6.7`. Never `127.1`, `0x7f.0.0.1`,
///   `0177.0.0.1`, `2130706433` or `127.0.0.01`: one parser reads those as an address, another
///   as a name, and a name is whatever its DNS says (`127.www.attacker-example.com`);
/// - the IPv6 literal `::1` (bracketed in a URL or `Host`). Not `::ffff:127.0.0.1`: RFC 8252's
///   loopback redirects are `127.0.0.1` and `[::1]`, and nothing needs the mapped form;
/// - for ``isLoopback(host:)`` only, the name `localhost` exactly (RFC 6761 reserves it for
///   loopback, and browsers resolve it so): never `localhost.`, `localhost.example` or any other
///   name. A redirect never counts `localhost` (``isLoopbackLiteral(_:)``): RFC 8252 section 8.3.
public enum Loopback {
    /// True for a `Host` or URL authority that names this machine: a loopback IP literal or
    /// `localhost`, with an optional port (`127.0.0.1:9090`, `[::1]:80`, `localhost:8080`).
    public static func isLoopback(host: String) -> Bool {
        guard let name = hostPart(host) else { return false }
        return name == "localhost" || isLoopbackLiteral(name)
    }

    /// True for a loopback IP literal with no port: `127.x.y.z` in plain dotted decimal, or `::1`
    /// (bracketed or not). Never a name, `localhost` included.
    public static func isLoopbackLiteral(_ host: String) -> Bool {
        if host == "::1" || host == "[::1]" { return true }
        guard let octets = ipv4Octets(Substring(host)) else { return false }
        return octets[0] == 127
    }

    /// The four octets of a plain dotted-decimal IPv4 address (no leading zeros, no other
    /// base, exactly four parts), or nil.
    static func ipv4Octets(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                part == "0" || !part.hasPrefix("0"), let value = UInt8(part)
            else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// The host of an authority with an optional port, lowercased; brackets kept for IPv6.
    /// Nil when it is not one (user info, stray brackets, a port that is not a number).
    private static func hostPart(_ authority: String) -> String? {
        let a = authority.lowercased()
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return nil }
            let tail = a[a.index(after: close)...]
            guard tail.isEmpty || isPort(tail) else { return nil }
            return String(a[...close])
        }
        if a == "::1" { return a }
        guard let colon = a.firstIndex(of: ":") else { return a }
        guard isPort(a[colon...]) else { return nil }
        return String(a[..<colon])
    }

    /// `:` and 1 to 5 digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Nil when what is sent to `url` cannot be read on the way: an https URL, or an http one
    /// to this machine. Otherwise why not (for an error that names the URL's host).
    public static func cleartextProblem(url: String) -> String? {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") { return nil }
        guard lower.hasPrefix("http://") else { return "\(url) is not an http:// or https:// URL" }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        return isLoopback(host: host) ? nil : "http://\(host) is not this machine: anyone on the way could read what is sent"
    }
}
