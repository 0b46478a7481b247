// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The admin API under `/api/admin/v1/apps/{app}/` (present only with `adminKeys`), answered
/// in relaxed JSON (plain numbers; times in unix seconds):
///
/// | Route | |
/// |---|---|
/// | GET `users?email=&provider=&state=&createdAfter=&...&limit=&cursor=` | `{"users": [...], "next": cursor or null}` |
/// | GET `users/{id}` | the user with identities, sessions, API key names and recent audit events |
/// | POST `users/{id}/disable`, `users/{id}/enable` | logins and tokens refused, or allowed again |
/// | DELETE `users/{id}` | the user, identities, sessions, keys and accounts |
/// | DELETE `users/{id}/sessions` | `{"revoked": N}` |
/// | PUT `users/{id}/custom_data` | a JSON object, or null to remove it |
/// | POST `users/{id}/reset` | sends the reset mail of the user's email/password account |
/// | GET `users/{id}/factors` | `{"factors": [...], "recoveryCodes": N}` |
/// | DELETE `users/{id}/factors/totp` | removes TOTP and the recovery codes |
/// | DELETE `users/{id}/factors/phone/{enrollmentId}` | removes a phone factor |
/// | POST `confirm` `{"email"}` | confirms a pending email/password account |
/// | GET `export`, POST `import` | NDJSON (``AdminTransferController``) |
/// | POST `import/firebase` | a batch of a `firebase auth:export` file's users (``AdminFirebaseImportController``) |
///
/// Every change lands in the audit log with `actor` `admin:NAME` (the key's name).
enum AdminRoutes {
    static let base = "/api/admin/v1"

    /// Adds the admin API to `router`, behind the key check of `keys` over `channel`.
    static func add(
        to router: Router<AuthRequestContext>, admin: AdminService, firebase: FirebaseAdmin, keys: AdminKeys, channel: AdminChannel
    ) {
        let apps = router.group(RouterPath(base + "/apps")).add(
            middleware: AdminAuthMiddleware(keys: keys, channel: channel) { request, context, error in
                // The app the path names, when the server has it (a path is whatever was sent).
                let parts = request.uri.path.dropFirst(base.count + "/apps/".count).split(separator: "/")
                guard let id = parts.first, let app = admin.apps[String(id)] else { return }
                await admin.adminRefused(app: app, from: AdminActor(request, context), code: error.code.rawValue)
            })
        // The app once the key is checked: an unknown key learns nothing of which apps exist.
        let app = apps.group(":app").add(middleware: AppMiddleware(apps: admin.apps))
        AdminController(admin: admin).addRoutes(to: app)
        AdminTransferController(admin: admin).addRoutes(to: app)
        AdminFirebaseImportController(firebase: firebase).addRoutes(to: app)
    }

    /// The request's body as JSON, or 400.
    static func body(_ request: Request, _ context: AuthRequestContext) async throws -> EJSON {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        do {
            return try EJSON(parsing: Array(buffer: buffer))
        } catch {
            throw ServiceError(.badRequest, "the body is not JSON: \(error)")
        }
    }

    /// An answer in relaxed JSON.
    static func json(_ body: EJSON, status: HTTPResponse.Status = .ok) -> Response {
        JSONResponse.make(body, status: status, mode: .relaxed)
    }
}
