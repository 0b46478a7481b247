/// Which hosts and URLs stay on this machine: the one rule for what may travel without TLS
/// (the server's dev checks, and the clients that refuse to send an admin key in clear).
public enum Loopback {
    /// True for 127.0.0.0/8, ::1 and `localhost` (a bracketed IPv6 address and a port are allowed).
    public static func isLoopback(host: String) -> Bool {
        var h = Substring(host.lowercased())
        if h.hasPrefix("[") {
            guard let end = h.firstIndex(of: "]") else { return false }
            h = h[h.index(after: h.startIndex)..<end]
            return h == "::1"
        }
        if h.filter({ $0 == ":" }).count == 1, let colon = h.firstIndex(of: ":") { h = h[..<colon] }
        if h == "localhost" || h == "::1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
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
