import AuthProtocol
import Hummingbird
import NIOCore

extension AuthService {
    /// The base URL `GET {app}/location` gives as `hostname`. realm-core sends every later
    /// request there, so it must be where this server really is, over the scheme the client
    /// really used, and never a name a request chose:
    ///
    /// - `publicURL`, when set;
    /// - else, from a trusted proxy that says so, its scheme (`X-Forwarded-Proto`) and the
    ///   host it was asked for (the last `X-Forwarded-Host`, or `Host`): the proxy must set
    ///   `X-Forwarded-Host` itself (one that passes the client's on would let a client choose
    ///   its own answer, which is why the answer is never cached, and why a deployment sets
    ///   `publicURL`);
    /// - else, in dev mode on a loopback address, the loopback `Host` the client named;
    /// - else the address the client connected to, as `http` (authsh itself speaks plain http):
    ///   an IP literal that reaches this server, whatever `Host` said.
    func clientBaseURL(_ request: Request, _ context: AuthRequestContext) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        if context.fromTrustedProxy, AdminChannel.cameThroughAProxy(request),
            let host = request.lastForwarded(.xForwardedHost) ?? request.head.authority, Self.isPlainAuthority(host)
        {
            return (AdminChannel.forwardedProto(request) == "https" ? "https://" : "http://") + host.lowercased()
        }
        if let devOrigin = origin(request) { return devOrigin }
        if let local = context.localAddress, let ip = local.ipAddress, let port = local.port {
            return "http://" + (ip.contains(":") ? "[\(ip)]" : ip) + ":\(port)"
        }
        return origin.value ?? "http://127.0.0.1"
    }

    /// A host and optional port, and nothing that could change a URL's meaning.
    private static func isPlainAuthority(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255 && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }
    }
}
