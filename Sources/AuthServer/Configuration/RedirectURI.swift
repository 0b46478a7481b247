// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A client redirect URI of the web redirect and loopback flows, and the allow-list rule
/// that keeps the server from being an open redirect.
struct RedirectURI: Equatable {
    let scheme: String
    /// Lowercased; an IPv6 address keeps its brackets.
    let host: String
    let port: Int?
    /// Path and query, as given.
    let rest: String

    /// Parses an absolute `http`/`https` URI with a host and no fragment, user info or
    /// control characters; nil otherwise.
    init?(_ text: String) {
        guard text.utf8.count <= 2048, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            !text.contains("#")
        else { return nil }
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { return nil }
        let afterScheme = text.dropFirst(scheme.count + 3)
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("\\") else { return nil }
        var host = Substring(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let tail = authority[authority.index(after: close)...]
            if !tail.isEmpty {
                guard tail.hasPrefix(":"), let p = Int(tail.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.rest = String(afterScheme[authorityEnd...])
    }

    /// True for `http://127.0.0.1` (any 127/8 address in plain dotted decimal) and
    /// `http://[::1]`: RFC 8252 loopback redirects. An IP literal only, never a name
    /// (`127.www.example.com`, `localhost`): see ``Loopback``.
    var isLoopback: Bool {
        scheme == "http" && Loopback.isLoopbackLiteral(host)
    }

    /// True when `self`, a redirect a client asked for, is allowed by `pattern`, one of
    /// `redirectURIs`: the same URI, except that a loopback pattern accepts any port (RFC 8252
    /// section 7.3).
    func isAllowed(by pattern: RedirectURI) -> Bool {
        guard scheme == pattern.scheme, host == pattern.host, rest == pattern.rest else { return false }
        return pattern.isLoopback || port == pattern.port
    }

    /// True when some entry of `list` allows this redirect.
    func isAllowed(by list: [String]) -> Bool {
        list.contains { RedirectURI($0).map(isAllowed(by:)) ?? false }
    }
}
