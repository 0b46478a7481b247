// SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird

/// Counts every request and times it, by the router's pattern for its path (so
/// `/app/{app}/...` is one route whatever the app), its method and its status. The outermost
/// middleware: the status counted is the one the client got.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let metrics: ServerMetrics

    /// The methods counted by name; any other is `other` (a client can send any token).
    private static let methods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = Self.methods.contains(request.method) ? request.method.rawValue : "other"
        do {
            let response = try await next(request, context)
            metrics.request(
                route: route(context), method: method, status: Int(response.status.code),
                duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.request(route: route(context), method: method, status: Int(status), duration: ContinuousClock.now - start)
            throw error
        }
    }

    /// The matched route's pattern, or `NotFound`; set by the router as it matches.
    private func route(_ context: Context) -> String {
        context.endpointPath ?? "NotFound"
    }
}
