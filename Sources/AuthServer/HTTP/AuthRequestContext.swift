import Hummingbird
import NIOCore

/// The request context of the server's routes.
public struct AuthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who the request counts against for rate limits and back-off: the peer's IPv4 address,
    /// or the /64 prefix of its IPv6 address (one machine commonly holds a whole /64).
    public let clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = Self.clientKey(source.channel.remoteAddress)
    }

    static func clientKey(_ address: SocketAddress?) -> String {
        switch address {
        case .v4(let a)?: return a.host
        case .v6(let a)?:
            var raw = a.address.sin6_addr
            let prefix = withUnsafeBytes(of: &raw) { Array($0.prefix(8)) }
            // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 address.
            if prefix.allSatisfy({ $0 == 0 }), let host = a.host.split(separator: ":").last, host.contains(".") { return String(host) }
            return prefix.map { String($0, radix: 16) }.joined(separator: ".") + "::/64"
        case .unixDomainSocket?: return "unix"
        case nil: return "unknown"
        }
    }

    /// The wire protocol's body limit (1 MiB).
    public var maxUploadSize: Int { 1 << 20 }
}
