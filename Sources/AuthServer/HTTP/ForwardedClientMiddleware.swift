import HTTPTypes
import Hummingbird

/// Takes the client's address from `X-Forwarded-For` for requests that a trusted proxy
/// forwarded (``TrustedProxies``); every later middleware and route sees that address.
struct ForwardedClientMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let trusted: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let header = request.headers[values: .xForwardedFor]
        guard !header.isEmpty, let client = trusted.client(peer: context.peerAddress, forwardedFor: header) else {
            return try await next(request, context)
        }
        var context = context
        context.clientAddress = AuthRequestContext.clientKey(client)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
