// SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird

/// Takes the client's address from `X-Forwarded-For` for requests that a trusted proxy
/// forwarded (``TrustedProxies``), and marks them as from a trusted proxy; every later
/// middleware and route sees both. (`X-Forwarded-Proto` is read by ``AdminChannel``, the one
/// place that asks.)
struct ForwardedClientMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let trusted: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard trusted.isTrusted(peer: context.peerAddress) else { return try await next(request, context) }
        var context = context
        context.fromTrustedProxy = true
        let header = request.headers[values: .xForwardedFor]
        if !header.isEmpty, let client = trusted.client(forwardedFor: header) {
            context.clientAddress = AuthRequestContext.clientKey(client)
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
}

extension Request {
    /// The value a proxy put in a list-valued header (`X-Forwarded-Proto`, `X-Forwarded-Host`):
    /// the last one, without spaces. Anything before it is what the client wrote.
    func lastForwarded(_ name: HTTPField.Name) -> String? {
        headers[values: name].flatMap { $0.split(separator: ",") }.last.map { String($0.filter { !$0.isWhitespace }) }
    }
}
