// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// Resolves the route's `:app` parameter once per request, before its handler: routes under
/// `/app/:app` read ``AuthRequestContext/app``. An app that does not exist is 404
/// `AppNotFound`, as App Services answers. Added to a group, it applies to the routes added
/// after it.
struct AppMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let apps: [String: AppRuntime]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.resolvedApp = try Self.app(context.parameters.get("app") ?? "", in: apps)
        return try await next(request, context)
    }

    /// The app named `id`, or 404 `AppNotFound`.
    static func app(_ id: String, in apps: [String: AppRuntime]) throws(ServiceError) -> AppRuntime {
        guard let app = apps[id] else {
            throw ServiceError(.appNotFound, "cannot find app using Client App ID '\(printable(id))'")
        }
        return app
    }
}
