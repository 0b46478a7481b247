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
/// | POST `confirm` `{"email"}` | confirms a pending email/password account |
/// | GET `export`, POST `import` | NDJSON (``AdminTransferController``) |
///
/// Every change lands in the audit log with `actor` `admin:NAME` (the key's name).
extension AuthService {
    static let adminBase = "/api/admin/v1"

    func addAdminRoutes(to router: Router<AuthRequestContext>, keys: AdminKeys) {
        let apps = router.group(RouterPath(Self.adminBase + "/apps")).add(
            middleware: AdminAuthMiddleware(keys: keys, channel: adminChannel) { request, context, error in
                // The app the path names, when the server has it (a path is whatever was sent).
                let parts = request.uri.path.dropFirst(Self.adminBase.count + "/apps/".count).split(separator: "/")
                guard let id = parts.first, let app = self.apps[String(id)] else { return }
                await self.adminRefused(app: app, from: AdminActor(request, context), code: error.code.rawValue)
            })
        // The app once the key is checked: an unknown key learns nothing of which apps exist.
        let app = apps.group(":app").add(middleware: AppMiddleware(apps: self.apps))
        AdminController(service: self).addRoutes(to: app)
        AdminTransferController(service: self).addRoutes(to: app)
    }

    static let noSuchUser = ServiceError(.userNotFound, "no user with that id in this app")

    /// The app and user the path names, or 404.
    func adminTarget(_ context: AuthRequestContext) async throws -> (AppRuntime, AdminUserRecord) {
        let app = try context.app
        guard let found = try await store.adminUser(id: context.parameters.get("id") ?? "", app: app.id) else { throw Self.noSuchUser }
        return (app, found)
    }

    /// The email of the user's email/password account, if it has one.
    static func userpassEmail(of user: UserRecord) -> String? {
        guard let identity = user.identities.first(where: { $0.providerType == ProviderType.userpass }) else { return nil }
        return identity.email ?? identity.data["email"]?.stringValue ?? user.data["email"]?.stringValue
    }

    /// Records an admin action of an API request.
    func adminAudit(
        _ event: String, app: AppRuntime, user: String?, _ request: Request, _ context: AuthRequestContext,
        detail: String? = nil
    ) async {
        await adminRecord(event, app: app, user: user, by: AdminActor(request, context), detail: detail)
    }

    static func adminBody(_ request: Request, _ context: AuthRequestContext) async throws -> EJSON {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        do {
            return try EJSON(parsing: Array(buffer: buffer))
        } catch {
            throw ServiceError(.badRequest, "the body is not JSON: \(error)")
        }
    }

    static func adminJSON(_ body: EJSON, status: HTTPResponse.Status = .ok) -> Response {
        JSONResponse.make(body, status: status, mode: .relaxed)
    }
}
