// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import HTTPTypes
import Hummingbird

/// CORS for the client APIs (`/api/client/v2.0/...`, and Firebase's `/identitytoolkit...` and
/// `/securetoken...`): pages of the origins an app allows
/// (``RequestOrigins``, config `allowedRequestOrigins`) may call it from a browser, as realm-web
/// does; pages of other origins get no `Access-Control-*` header, so the browser keeps every
/// answer from them, and their preflights are refused (403).
///
/// Which app: the one in the path (`/app/{id}/...`). The routes without an app in the path
/// (`auth/session`, `auth/profile`, `auth/api_keys`, `auth/delete`) answer an origin that any app
/// allows: their requests carry a token, and the token names its app. A Firebase route's app is
/// the project of its `?key=` (a preflight carries no other header): no key, or one no project
/// has, and no origin is allowed.
///
/// Every answer to an allowed origin carries the headers, errors included (a 401 that the
/// browser hides is one the app cannot handle). Nothing else is opened by this: the dev API,
/// the dev identity provider, the admin API and the admin page are outside `/api/client/`.
///
/// Hummingbird's own `CORSMiddleware` is not used: its origins are one list fixed when the
/// router is built, where these are per app and change with the dev API's config, and it answers
/// every preflight 204, where one from an origin not allowed is refused here.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    /// The apps, by id (their configurations are read as they are now).
    let apps: [String: AppRuntime]
    /// The apps as Firebase projects (a Firebase route's app is its API key's).
    let firebase: FirebaseProjects
    /// Dev mode: any origin for an app that lists none.
    let dev: Bool

    static let prefix = "/api/client/v2.0/"
    /// Firebase's client API, at the paths the emulator serves it.
    static let firebasePrefixes = ["/identitytoolkit.googleapis.com/", "/securetoken.googleapis.com/"]
    /// realm-web 2 and realm-core 14 use these (no PATCH).
    static let methods = "GET, POST, PUT, DELETE"
    /// What realm-web and realm-core send beyond the CORS-safelisted headers.
    static let headers = "Authorization, Content-Type, Accept"
    /// What the Firebase JavaScript SDK sends beyond them (packages/auth/src/api/index.ts).
    static let firebaseHeaders =
        "Authorization, Content-Type, Accept, X-Client-Version, X-Firebase-Client, X-Firebase-gmpid, X-Firebase-AppCheck, "
        + "X-Firebase-Locale, X-Goog-Api-Key"
    /// The answer headers a page may read beyond the safelisted ones: realm-web reads
    /// `X-Baas-Location` after a link; `Retry-After` says when to try a 429 or 503 again.
    static let exposed = "X-Baas-Location, Retry-After"
    /// How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours).
    static let maxAge = "600"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let isFirebase = Self.firebasePrefixes.contains { path.hasPrefix($0) }
        guard let origin = request.headers[.origin], path.hasPrefix(Self.prefix) || isFirebase else {
            return try await next(request, context)
        }
        let allowed =
            isFirebase
            ? allowsFirebase(origin, key: request.uri.queryParameters.get("key") ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!])
            : allows(origin, path: path)
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            guard allowed else {
                var refused = JSONResponse.error(
                    ServiceError(.forbidden, "origin \(printable(origin)) may not call this app from a browser (allowedRequestOrigins)"))
                refused.headers[values: .vary].append("Origin")
                return refused
            }
            var headers: HTTPFields = [
                .accessControlAllowOrigin: origin,
                .accessControlAllowMethods: Self.methods,
                .accessControlAllowHeaders: isFirebase ? Self.firebaseHeaders : Self.headers,
                .accessControlAllowCredentials: "true",
                .accessControlMaxAge: Self.maxAge,
            ]
            headers[values: .vary] = ["Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"]
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        // The answer differs by origin: a cache must not give one origin's to another.
        response.headers[values: .vary].append("Origin")
        if allowed {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlAllowCredentials] = "true"
            response.headers[.accessControlExposeHeaders] = Self.exposed
        }
        return response
    }

    /// Whether a page of `origin` may call `path`.
    func allows(_ origin: String, path: String) -> Bool {
        let rest = path.dropFirst(Self.prefix.count)
        if rest.hasPrefix("app/") {
            let id = rest.dropFirst(4).prefix { $0 != "/" }
            return apps[String(id)]?.requestOrigins(dev: dev).allows(origin) ?? false
        }
        return apps.values.contains { $0.requestOrigins(dev: dev).allows(origin) }
    }

    /// Whether a page of `origin` may call the Firebase routes of the project of API key `key`.
    func allowsFirebase(_ origin: String, key: String?) -> Bool {
        guard let project = try? firebase.project(apiKey: key) else { return false }
        return project.app.requestOrigins(dev: dev).allows(origin)
    }
}
