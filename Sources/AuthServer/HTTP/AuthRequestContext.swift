import Hummingbird
import NIOCore

/// The request context of the server's routes.
public struct AuthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who the request counts against for rate limits and back-off, and who the audit log
    /// names: the client's IPv4 address, or the /64 prefix of its IPv6 address (one machine
    /// commonly holds a whole /64). The connection's peer, unless a trusted proxy forwarded the
    /// request (``ForwardedClientMiddleware``).
    public internal(set) var clientAddress: String
    /// The connection's peer.
    public let peerAddress: SocketAddress?
    /// The name of the admin key the request presented (admin routes only, once checked).
    public internal(set) var adminKeyName: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress
        clientAddress = Self.clientKey(peerAddress)
    }

    static func clientKey(_ address: SocketAddress?) -> String {
        // `ipAddress`, not `host`: the host is the name an address was made from, empty for
        // one parsed from text (a forwarded client).
        switch address {
        case .v4?: return address?.ipAddress ?? "unknown"
        case .v6(let a)?:
            var raw = a.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 address.
            if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes.suffix(4).map(String.init).joined(separator: ".")
            }
            return bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ".") + "::/64"
        case .unixDomainSocket?: return "unix"
        case nil: return "unknown"
        }
    }

    /// The wire protocol's body limit (1 MiB).
    public var maxUploadSize: Int { 1 << 20 }
}
