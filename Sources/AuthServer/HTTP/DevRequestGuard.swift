// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird

/// Keeps web pages away from the dev API. A page the developer visits can make the browser
/// send requests to a loopback server; the dev API would let it wipe users or read the outbox.
///
/// - A body must be `Content-Type: application/json` (415 otherwise): a cross-site form or
///   `text/plain` post is a "simple" request that browsers send without asking.
/// - A request from a browser page names its page in `Origin` (and `Sec-Fetch-Site`): only
///   the server's own origin is served (403 otherwise).
/// - While the server listens on loopback, `Host` must name a loopback address: a DNS name
///   rebound to 127.0.0.1 makes a hostile page same-origin with the server, but its `Host`
///   is still that name.
struct DevRequestGuard: RouterMiddleware {
    typealias Context = AuthRequestContext
    let listenHost: String
    let publicURL: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authority = request.head.authority
        if ServerConfiguration.isLoopback(host: listenHost), let authority, !ServerConfiguration.isLoopback(host: authority) {
            throw ServiceError(.forbidden, "the dev API answers only requests addressed to a loopback address (Host: \(printable(authority)))")
        }
        if request.headers[.secFetchSite] == "cross-site" {
            throw ServiceError(.forbidden, "the dev API refuses cross-site requests")
        }
        if let origin = request.headers[.origin] {
            let own = authority.map { ["http://\($0)", "https://\($0)"] } ?? []
            guard own.contains(origin) || origin == publicURL else {
                throw ServiceError(.forbidden, "the dev API refuses requests from another origin (\(printable(origin)))")
            }
        }
        if [.post, .put, .patch].contains(request.method) {
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard type == "application/json" else {
                throw ServiceError(
                    .unsupportedMediaType, "the dev API takes a body of Content-Type application/json, got \(printable(type ?? "none"))")
            }
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
