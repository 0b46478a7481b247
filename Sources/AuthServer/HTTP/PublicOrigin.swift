// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird
import NIOCore

/// Where this server is, as the links and URLs it hands out name it: the base URL of
/// `location`, the origin of the links in mails, the OAuth callback.
struct PublicOrigin {
    /// ``ServerConfiguration/publicURL``.
    let publicURL: String?
    /// Dev mode: a loopback `Host` may name the origin.
    let dev: Bool
    /// The address the server listens on.
    let listenHost: String
    /// This server's address once it listens.
    let address: ServerOrigin
    /// `https` when the server serves TLS itself, else `http`.
    var scheme = "http"

    /// The origin for links in mails: `publicURL`; without it, in dev mode on a loopback
    /// address, the loopback origin the client used; otherwise none (mails then carry the
    /// token and token id without a link). Never a `Host` header that names another machine:
    /// an attacker asking for a victim's reset would choose where the victim's link points.
    func mailLinks(_ request: Request) -> String? {
        if let publicURL { return publicURL }
        guard dev, ServerConfiguration.isLoopback(host: listenHost),
            let authority = request.head.authority, ServerConfiguration.isLoopback(host: authority),
            authority.allSatisfy({ $0.isLetter || $0.isNumber || ":.[]".contains($0) })
        else { return nil }
        return "\(scheme)://\(authority)"
    }

    /// This server's callback URL, registered at identity providers.
    func callbackURL() throws(ServiceError) -> String {
        guard let base = publicURL ?? address.value else {
            throw ServiceError(.internalServerError, "the server's public URL is not known: set publicURL")
        }
        return base + Routes.base + "/auth/callback"
    }

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
    /// - else the address the client connected to, as `http` (or `https` when the server serves
    ///   TLS itself): an IP literal that reaches this server, whatever `Host` said.
    func clientBaseURL(_ request: Request, _ context: AuthRequestContext) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        if context.fromTrustedProxy, AdminChannel.cameThroughAProxy(request),
            let host = request.lastForwarded(.xForwardedHost) ?? request.head.authority, Self.isPlainAuthority(host)
        {
            return (AdminChannel.forwardedProto(request) == "https" ? "https://" : "http://") + host.lowercased()
        }
        if let devOrigin = mailLinks(request) { return devOrigin }
        if let local = context.localAddress, let ip = local.ipAddress, let port = local.port {
            return scheme + "://" + (ip.contains(":") ? "[\(ip)]" : ip) + ":\(port)"
        }
        return address.value ?? "http://127.0.0.1"
    }

    /// A host and optional port, and nothing that could change a URL's meaning.
    static func isPlainAuthority(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255 && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }
    }
}
