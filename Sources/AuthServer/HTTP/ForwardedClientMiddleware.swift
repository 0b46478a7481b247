import HTTPTypes
import Hummingbird

/// Takes the client's address from `X-Forwarded-For`, and the scheme it used from
/// `X-Forwarded-Proto`, for requests that a trusted proxy forwarded (``TrustedProxies``); every
/// later middleware and route sees them.
struct ForwardedClientMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let trusted: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard trusted.isTrusted(peer: context.peerAddress) else { return try await next(request, context) }
        var context = context
        context.fromTrustedProxy = true
        // The proxy's own value is the last one: anything before it is what the client wrote.
        let schemes = request.headers[values: .xForwardedProto].flatMap { $0.split(separator: ",") }
        context.forwardedProto = schemes.last.map { String($0.filter { !$0.isWhitespace }).lowercased() }
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
}
