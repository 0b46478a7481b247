// SPDX-License-Identifier: Apache-2.0
/// A URL a plugin asks `context.http` to reach, taken apart strictly: `http` or `https`, no
/// user information, a host (a name, a dotted-quad IPv4 address or a bracketed IPv6 one) and a
/// port. Anything else is no URL.
struct OutboundURL: Sendable, Equatable {
    var scheme: String
    /// Lowercased; an IPv6 address without its brackets.
    var host: String
    var port: Int
    /// The path and query, `/` when empty.
    var path: String

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    init?(_ text: String) {
        guard text.utf8.count <= 8192, !text.contains(where: { $0.isWhitespace || !$0.isASCII || $0 == "\\" }) else { return nil }
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            guard IPAddressBytes(v6: String(host)) != nil else { return nil }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }) else { return nil }
        }
        var port = Self.defaultPort(scheme)
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p), portText.allSatisfy(\.isNumber) else { return nil }
            port = p
        }
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.path = path
    }

    /// The URL as it is sent: host in brackets for IPv6, the port when not the scheme's.
    var text: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h)" + (port == Self.defaultPort(scheme) ? "" : ":\(port)") + path
    }
}
