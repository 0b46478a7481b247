// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird

/// Whether nobody on the way could read what a request to the admin API or the admin page
/// carries (an admin key, the page's session cookie), as far as the server can tell. Both take
/// a key only then, unless the config says `adminOverHTTP`.
///
/// - A request from a trusted proxy (``TrustedProxies``) that carries a proxy's headers is over
///   https when the proxy says so (`X-Forwarded-Proto: https`), and not otherwise. Without
///   them it came from a client on the proxy's machine, and is judged as a direct one.
/// - A request from any other peer that carries proxy headers came through a proxy the server
///   was not told about: nothing is known of the client's side of it, so it is not trusted.
/// - A direct request is over https when `publicURL` is https, the request is addressed to its
///   host, and its peer is this machine or a trusted proxy: a TLS terminator that adds no
///   headers. (A server listening in plain http knows that any other peer that names the public
///   host, a browser sent to `http://` that name on a port the server listens on, came without
///   TLS; so does the same server reached at another address or port.) It is safe from this
///   machine: a loopback peer that addressed a loopback host. (A request with no peer at all came
///   through no socket: the in-process testing router. It counts as this machine.)
/// - A server that serves TLS itself (config `tls`) got every direct request over https, from
///   any peer: its origin is `https://` and the host the request named.
///
/// What the server cannot see, the sign-in form guards: it posts to an absolute URL, the https
/// origin or the loopback address the request named. A page that reached a remote browser
/// through a proxy that hides itself (plain `proxy_pass`, which sends a loopback `Host`) posts
/// the key to that browser's own machine, or is stopped by the page's `form-action 'self'`,
/// and never across the network. A post whose `Origin` is not the one expected is refused.
struct AdminChannel: Sendable {
    /// `publicURL`'s host and port as a `Host` header names them, when it is https.
    let httpsAuthority: String?
    /// Config `adminOverHTTP`: keys are taken over plain http too.
    let allowsHTTP: Bool
    /// The server terminates TLS itself (config `tls`): every connection is https.
    let servesTLS: Bool

    /// How a request came, as far as the server can tell.
    enum Verdict: Equatable {
        /// Over https; `origin` is the https origin when the server knows it.
        case https(origin: String?)
        /// From this machine, directly, addressed to `origin` (`http://127.0.0.1:9090`).
        case loopback(origin: String)
        /// Anything else: a key must not be asked for.
        case unsafe

        /// Over https (cookies set now are `Secure`).
        var isHTTPS: Bool {
            if case .https = self { return true }
            return false
        }
    }

    init(publicURL: String?, allowsHTTP: Bool = false, servesTLS: Bool = false) {
        self.allowsHTTP = allowsHTTP
        self.servesTLS = servesTLS
        guard let url = publicURL?.lowercased(), url.hasPrefix("https://") else {
            httpsAuthority = nil
            return
        }
        var authority = String(url.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if authority.hasSuffix(":443") { authority.removeLast(4) }
        httpsAuthority = authority
    }

    func verdict(_ request: Request, _ context: AuthRequestContext) -> Verdict {
        let proxied = Self.cameThroughAProxy(request)
        if context.fromTrustedProxy && proxied { return Self.forwardedProto(request) == "https" ? .https(origin: nil) : .unsafe }
        // Direct (a trusted proxy's address without a proxy's headers is a client on its machine).
        guard !proxied, let host = Self.host(request) else { return .unsafe }
        if servesTLS { return .https(origin: PublicOrigin.isPlainAuthority(host) ? "https://" + host : nil) }
        if let httpsAuthority, host == httpsAuthority {
            return context.fromTrustedProxy || Self.fromThisMachine(context) ? .https(origin: "https://" + httpsAuthority) : .unsafe
        }
        guard Loopback.isLoopback(host: host), Self.fromThisMachine(context) else { return .unsafe }
        return .loopback(origin: "http://" + host)
    }

    private static let ipv6Loopback = [UInt8](repeating: 0, count: 15) + [1]

    /// The peer is a loopback address, or there is none (the in-process testing router).
    private static func fromThisMachine(_ context: AuthRequestContext) -> Bool {
        guard let peer = context.peerAddress else { return true }
        guard let bytes = TrustedProxies.bytes(peer) else { return false }
        return bytes.count == 4 ? bytes[0] == 127 : bytes == ipv6Loopback
    }

    /// Where the sign-in form posts, or nil where a key must not be asked for.
    func signInAction(_ verdict: Verdict) -> String? {
        switch verdict {
        case .https(let origin): return (origin ?? "") + "/admin/login"
        case .loopback(let origin): return origin + "/admin/login"
        case .unsafe: return allowsHTTP ? "/admin/login" : nil
        }
    }

    /// Whether a posted key may be read: the channel is safe, and a browser's `Origin`, when
    /// it says one (the page's `Referrer-Policy: no-referrer` makes browsers send `null`), is
    /// the page's.
    func acceptsKey(_ verdict: Verdict, _ request: Request) -> Bool {
        let expected: String?
        switch verdict {
        case .unsafe: return allowsHTTP
        case .https(let origin): expected = origin
        case .loopback(let origin): expected = origin
        }
        guard let sent = request.headers[.origin]?.lowercased(), sent != "null" else { return true }
        guard let expected else { return sent.hasPrefix("https://") }
        return sent == expected
    }

    /// Whether the admin API may read a key from this request.
    func apiTakesKey(_ request: Request, _ context: AuthRequestContext) -> Bool {
        allowsHTTP || verdict(request, context) != .unsafe
    }

    /// The refusal of a key sent where it could be read on the way.
    static let refusal = ServiceError(
        .forbidden,
        "an admin key is taken only over https (a TLS proxy on this machine or in "
            + "trustedProxies that sends X-Forwarded-Proto: https or names publicURL's https host) or from this machine; "
            + "config adminOverHTTP: true takes it over plain http too")

    /// The scheme a proxy says the client used (`X-Forwarded-Proto`), lowercased. The proxy's
    /// own value is the last one: anything before it is what the client wrote.
    static func forwardedProto(_ request: Request) -> String? {
        request.lastForwarded(.xForwardedProto)?.lowercased()
    }

    /// The headers a proxy adds.
    private static let proxyHeaders = [
        "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port",
        "X-Forwarded-Scheme", "X-Forwarded-Ssl", "Front-End-Https", "Forwarded", "X-Real-IP", "Via",
    ]
    .compactMap { HTTPField.Name($0) }

    static func cameThroughAProxy(_ request: Request) -> Bool {
        proxyHeaders.contains { request.headers[$0] != nil }
    }

    /// The request's `Host` (or HTTP/2 authority), lowercased, `:443` dropped as `publicURL`'s
    /// is (`:80` is kept: it never names the https origin).
    private static func host(_ request: Request) -> String? {
        guard var host = request.head.authority?.lowercased() else { return nil }
        if host.hasSuffix(":443") { host.removeLast(4) }
        return host
    }
}
