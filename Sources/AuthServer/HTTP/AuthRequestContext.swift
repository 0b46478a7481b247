// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
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
    /// The address the client connected to (this side of the connection).
    public let localAddress: SocketAddress?
    /// True when the peer is a trusted proxy (``ForwardedClientMiddleware``).
    public internal(set) var fromTrustedProxy = false
    /// The name of the admin key the request presented (admin routes only, once checked).
    public internal(set) var adminKeyName: String?
    /// The app the route's `:app` names, resolved once by ``AppMiddleware``.
    var resolvedApp: AppRuntime?

    /// The app of a route under `/app/:app` (``AppMiddleware`` put it here).
    var app: AppRuntime {
        get throws(ServiceError) {
            guard let resolvedApp else { throw ServiceError(.appNotFound, "this route names no app") }
            return resolvedApp
        }
    }

    /// The caller of a route that takes a bearer token, checked once by ``CallerMiddleware``.
    var resolvedCaller: Caller?
    /// The caller of a route named by a refresh token, checked once by ``CallerMiddleware``.
    var resolvedSessionCaller: SessionCaller?

    /// The caller of a route that takes an access token (``CallerMiddleware`` put it here).
    var caller: Caller {
        get throws(ServiceError) {
            guard let resolvedCaller else { throw ServiceError(.missingAuthReq, "must authenticate first") }
            return resolvedCaller
        }
    }

    /// The caller of a route named by a refresh token (``CallerMiddleware`` put it here).
    var sessionCaller: SessionCaller {
        get throws(ServiceError) {
            guard let resolvedSessionCaller else { throw ServiceError(.missingAuthReq, "must authenticate first") }
            return resolvedSessionCaller
        }
    }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress
        localAddress = source.channel.localAddress
        clientAddress = Self.clientKey(peerAddress)
    }

    static func clientKey(_ address: SocketAddress?) -> String {
        // From the address's bytes, not its `host` (the name an address was made from, empty
        // for one parsed from text: a forwarded client). An IPv4-mapped address is its IPv4.
        guard let address else { return "unknown" }
        guard let bytes = TrustedProxies.bytes(address) else { return "unix" }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ".") + "::/64"
    }

    /// The wire protocol's body limit (1 MiB).
    public var maxUploadSize: Int { 1 << 20 }
}
