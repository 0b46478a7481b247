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
/// | GET `export`, POST `import` | NDJSON (``addAdminTransferRoutes(to:)``) |
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
        app.get("users") { request, context in
            let app = try context.app
            let query = try UserQuery(parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
            let users = try await self.store.listUsers(app: app.id, query: query)
            let next: EJSON = users.count == query.limit ? users.last.map { .string($0.user.id) } ?? .null : .null
            return Self.adminJSON(["users": .array(users.map(Self.adminUser)), "next": next])
        }
        app.get("users/:id") { _, context in
            let (app, found) = try await self.adminTarget(context)
            return Self.adminJSON(try await self.adminDetails(found, app: app))
        }
        for (action, disabled) in [("disable", true), ("enable", false)] {
            app.post("users/:id/\(action)") { request, context in
                let app = try context.app
                let id = context.parameters.get("id") ?? ""
                try await self.adminSetDisabled(disabled, app: app, id: id, by: AdminActor(request, context))
                return Self.adminJSON(["id": .string(id), "disabled": .bool(disabled)])
            }
        }
        app.delete("users/:id") { request, context in
            let app = try context.app
            let id = context.parameters.get("id") ?? ""
            try await self.adminDelete(app: app, id: id, by: AdminActor(request, context))
            return Self.adminJSON(["id": .string(id), "deleted": true])
        }
        app.delete("users/:id/sessions") { request, context in
            let app = try context.app
            let id = context.parameters.get("id") ?? ""
            let revoked = try await self.adminRevokeSessions(app: app, id: id, by: AdminActor(request, context))
            return Self.adminJSON(["revoked": .int64(Int64(revoked))])
        }
        app.put("users/:id/custom_data") { request, context in
            let (app, found) = try await self.adminTarget(context)
            let data: EJSONDocument?
            switch try await Self.adminBody(request, context) {
            case .document(let d):
                if let problem = CustomDataLimits.problem(d) { throw ServiceError(.invalidParameter, problem) }
                data = d
            case .null: data = nil
            default: throw ServiceError(.invalidParameter, "custom data must be a JSON object, or null to remove it")
            }
            guard try await self.store.setCustomData(data, userId: found.user.id, app: app.id),
                let changed = try await self.store.adminUser(id: found.user.id, app: app.id)
            else { throw Self.noSuchUser }
            await self.adminAudit("custom_data_set", app: app, user: found.user.id, request, context)
            return Self.adminJSON(try await self.adminDetails(changed, app: app))
        }
        app.post("users/:id/reset") { request, context in
            let (app, found) = try await self.adminTarget(context)
            guard let email = Self.userpassEmail(of: found.user) else {
                throw ServiceError(.userNotFound, "the user has no email/password identity")
            }
            guard try self.userpassConfig(app).runResetFunction == false else {
                throw ServiceError(.badRequest, "a reset function is configured: resets go through it")
            }
            try await self.sendLink(.reset, app: app, email: email, origin: nil)
            await self.adminAudit("reset_requested", app: app, user: found.user.id, request, context)
            return Self.adminJSON(["sent": true])
        }
        addAdminTransferRoutes(to: app)
        app.post("confirm") { request, context in
            let app = try context.app
            guard case .document(let body) = try await Self.adminBody(request, context),
                case .string(let email)? = body["email"], !email.isEmpty
            else {
                throw ServiceError(.missingParameter, "expected {\"email\": ...}")
            }
            guard let account = try await self.store.userpassAccount(app: app.id, email: email) else {
                throw ServiceError(.userNotFound, "no email/password account with that email")
            }
            if !account.confirmed { try await self.store.confirmUserpassAccount(app: app.id, email: account.email) }
            await self.adminAudit("confirm", app: app, user: nil, request, context, detail: account.confirmed ? "already confirmed" : nil)
            return Self.adminJSON(["email": .string(account.email), "confirmed": true])
        }
    }

    static let noSuchUser = ServiceError(.userNotFound, "no user with that id in this app")

    /// The app and user the path names, or 404.
    private func adminTarget(_ context: AuthRequestContext) async throws -> (AppRuntime, AdminUserRecord) {
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

    private static func adminBody(_ request: Request, _ context: AuthRequestContext) async throws -> EJSON {
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
