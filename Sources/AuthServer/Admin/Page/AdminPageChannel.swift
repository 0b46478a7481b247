import AuthProtocol
import HTTPTypes
import Hummingbird

/// Whether nobody on the way could read what an admin page request carries (an admin key, the
/// session cookie), as far as the server can tell. The page asks for a key only then.
///
/// - A request from a trusted proxy (``TrustedProxies``) is over https when the proxy says so
///   (`X-Forwarded-Proto: https`), and not otherwise.
/// - A request from any other peer that carries proxy headers came through a proxy the server
///   was not told about: nothing is known of the client's side of it, so it is not trusted.
/// - A direct request is over https when `publicURL` is https and the request is addressed to
///   its host (a TLS terminator that adds no headers; the same server reached at another
///   address or port, over http, is not), and it is safe from this machine: a loopback peer
///   that addressed a loopback host.
struct AdminPageChannel: Sendable {
    /// `publicURL`'s host and port as a `Host` header names them, when it is https.
    let httpsAuthority: String?

    init(publicURL: String?) {
        guard let url = publicURL?.lowercased(), url.hasPrefix("https://") else {
            httpsAuthority = nil
            return
        }
        var authority = String(url.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if authority.hasSuffix(":443") { authority.removeLast(4) }
        httpsAuthority = authority
    }

    /// Over https.
    func isHTTPS(_ request: Request, _ context: AuthRequestContext) -> Bool {
        if context.fromTrustedProxy { return context.forwardedProto == "https" }
        guard !Self.cameThroughAProxy(request), let httpsAuthority, let host = Self.host(request) else { return false }
        return host == httpsAuthority
    }

    /// Where an admin key may be typed: over https, or from this machine with nothing between.
    func keyMayTravel(_ request: Request, _ context: AuthRequestContext) -> Bool {
        if isHTTPS(request, context) { return true }
        guard !context.fromTrustedProxy, !Self.cameThroughAProxy(request), let host = Self.host(request),
              Loopback.isLoopback(host: host), let peer = context.peerAddress, let bytes = TrustedProxies.bytes(peer) else { return false }
        return bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// The headers a proxy adds.
    private static let proxyHeaders = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-IP", "Via"]
        .compactMap { HTTPField.Name($0) }

    private static func cameThroughAProxy(_ request: Request) -> Bool {
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
