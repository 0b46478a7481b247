// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// Lets a request into the admin API only with an admin key (`Authorization: Bearer KEY`),
/// never with a user's token, and only where nobody on the way could read the key
/// (``AdminChannel``); the key's name goes in the context for the audit log. Its answers are
/// never stored by a cache (`Cache-Control: no-store`).
struct AdminAuthMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let keys: AdminKeys
    let channel: AdminChannel
    /// Told of each refused request (for the audit log), with the error it gets.
    let refused: @Sendable (Request, Context, ServiceError) async -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Before the key is looked at: one sent in clear is refused unread.
        guard channel.apiTakesKey(request, context) else {
            await refused(request, context, AdminChannel.refusal)
            throw AdminChannel.refusal
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            let error = ServiceError(.missingAuthReq, "the admin API needs an admin key: Authorization: Bearer KEY")
            await refused(request, context, error)
            throw error
        }
        guard let name = keys.name(of: String(header.dropFirst(7))) else {
            let error = ServiceError(.invalidAdminKey, "not an admin key")
            await refused(request, context, error)
            throw error
        }
        var context = context
        context.adminKeyName = name
        var response = try await next(request, context)
        // Users' data and, in an export, password hashes: never kept by a cache on the way.
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
