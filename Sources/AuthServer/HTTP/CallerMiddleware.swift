// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// Checks a route's bearer token once, before its handler, and puts its caller in the
/// request context (``AuthRequestContext/caller`` or ``AuthRequestContext/sessionCaller``), as
/// ``AdminAuthMiddleware`` does for admin keys: the services behind the routes take a caller,
/// never a token. On a route under `/app/:app` the token must be one of that app. Added to a
/// group, it applies to the routes added after it.
struct CallerMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext

    /// The token a route's caller presents.
    enum Token {
        /// An access token (most of the client API).
        case access
        /// A refresh token (a user's API keys, as App Services has them).
        case refresh
    }

    let sessions: SessionService
    let token: Token

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        switch token {
        case .access: context.resolvedCaller = try await sessions.caller(of: request, context: context)
        case .refresh: context.resolvedSessionCaller = try await sessions.caller(refreshToken: try request.bearerToken(), identities: true)
        }
        return try await next(request, context)
    }
}

extension SessionService {
    /// The caller of the request's access token (for the routes that take one only sometimes:
    /// a login that links, a sign-in that links).
    func caller(of request: Request, context: AuthRequestContext) async throws -> Caller {
        try await caller(accessToken: try request.bearerToken(), in: context.resolvedApp)
    }
}
