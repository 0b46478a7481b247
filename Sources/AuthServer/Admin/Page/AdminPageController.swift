// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The admin page's routes (see `AdminPage.swift` for what the page does and the rules it
/// keeps): its files, the sign-in and sign-out, the users, a user and the changes to it, and
/// the audit log.
struct AdminPageController {
    let admin: AdminService
    /// Where a key may be taken (``AdminChannel``).
    let channel: AdminChannel
    let keys: AdminKeys
    let sessions: AdminPageSessions

    /// Adds the routes under `/admin`.
    func addRoutes(to router: Router<AuthRequestContext>) {
        router.get("admin/style.css", use: style)
        router.get("admin/favicon.svg", use: favicon)
        router.get("admin", use: home)
        router.get("admin/login", use: signInForm)
        router.post("admin/login", use: signIn)
        router.post("admin/logout", use: signOut)
        router.get("admin/apps/:app/users", use: users)
        router.get("admin/apps/:app/users/:id", use: user)
        router.post("admin/apps/:app/users/:id/disable", use: disable)
        router.post("admin/apps/:app/users/:id/enable", use: enable)
        router.post("admin/apps/:app/users/:id/delete", use: delete)
        router.post("admin/apps/:app/users/:id/revoke", use: revokeSessions)
        router.post("admin/apps/:app/users/:id/sessions/:session/revoke", use: revokeSession)
        router.get("admin/apps/:app/audit", use: audit)
    }

    @Sendable func style(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/css; charset=utf-8", .cacheControl: "max-age=300",
                .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: AdminPageTemplates.css)))
    }

    @Sendable func favicon(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400", .xContentTypeOptions: "nosniff"],
            body: .init(byteBuffer: ByteBuffer(string: AdminPageTemplates.icon)))
    }

    @Sendable func home(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard pageSession(request, context) != nil else { return Self.redirect("/admin/login") }
        return Self.redirect("/admin/apps/\(adminHomeApp?.id ?? "local")/users")
    }

    @Sendable func signInForm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let verdict = channel.verdict(request, context)
        guard let action = channel.signInAction(verdict) else { return Self.insecure() }
        let token = Secrets.randomHex(bytes: 32)
        var response = Self.page("Sign in", AdminPageTemplates.render("login", ["csrf": token, "action": action]), layout: [:])
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: "\(Self.loginCookie)=\(token); Path=/admin; HttpOnly; SameSite=Strict; Max-Age=3600\(Self.secure(verdict))"))
        return response
    }

    @Sendable func signIn(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let verdict = channel.verdict(request, context)
        guard channel.acceptsKey(verdict, request) else { return Self.insecure() }
        let form = try await Self.pageForm(request, context)
        guard let token = form["csrf"], let cookie = Self.cookie(Self.loginCookie, request),
            Secrets.constantTimeEqual(Array(token.utf8), Array(cookie.utf8))
        else {
            return Self.forbidden()
        }
        // The page serves every app; its sign-ins are recorded under the one it opens on.
        let home = adminHomeApp
        guard let name = keys.name(of: form["key"] ?? "") else {
            if let home {
                await admin.adminRefused(app: home, from: AdminActor(request, context), code: ServiceErrorCode.invalidAdminKey.rawValue)
            }
            let again = Secrets.randomHex(bytes: 32)
            var response = Self.page(
                "Sign in",
                AdminPageTemplates.render(
                    "login",
                    [
                        "csrf": again, "error": "That is not an admin key.",
                        "action": channel.signInAction(verdict) ?? "/admin/login",
                    ]),
                layout: [:], status: .unauthorized)
            response.headers.append(
                HTTPField(
                    name: .setCookie,
                    value: "\(Self.loginCookie)=\(again); Path=/admin; HttpOnly; SameSite=Strict; Max-Age=3600\(Self.secure(verdict))"))
            return response
        }
        if let home { await admin.adminRecord("admin_signed_in", app: home, user: nil, by: AdminActor(request, context, keyName: name)) }
        let (id, _) = sessions.start(keyName: name, now: admin.clock.now)
        var response = Self.redirect("/admin")
        response.headers.append(
            HTTPField(name: .setCookie, value: "\(Self.pageCookie)=\(id); Path=/admin; HttpOnly; SameSite=Strict\(Self.secure(verdict))"))
        response.headers.append(
            HTTPField(
                name: .setCookie, value: "\(Self.loginCookie)=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0\(Self.secure(verdict))"))
        return response
    }

    @Sendable func signOut(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let verdict = channel.verdict(request, context)
        return try await pagePost(request, context) { _, _ in
            if let id = Self.cookie(Self.pageCookie, request) { sessions.end(id) }
            var response = Self.redirect("/admin/login")
            response.headers.append(
                HTTPField(
                    name: .setCookie, value: "\(Self.pageCookie)=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0\(Self.secure(verdict))"))
            return response
        }
    }

    @Sendable func users(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await pageGet(request, context) { session, app in
            let q = request.uri.queryParameters
            var query = UserQuery()
            query.limit = 50
            let email = q.get("email").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
            query.emailPrefix = email?.lowercased()
            let state = q.get("state").map { String($0) } ?? ""
            if state == "enabled" || state == "disabled" { query.disabled = state == "disabled" }
            if let cursor = q.get("cursor").map({ String($0) }), cursor.utf8.count == 24 { query.after = cursor }
            let users = try await admin.store.listUsers(app: app.id, query: query)
            var next: String?
            if users.count == query.limit, let last = users.last?.user.id {
                next = "/admin/apps/\(app.id)/users?" + FormEncoding.encode([("email", email ?? ""), ("state", state), ("cursor", last)])
            }
            var values: [String: Any] = [
                "app": app.id, "email": email ?? "", "any": state.isEmpty, "enabled": state == "enabled", "disabled": state == "disabled",
                "users": users.map { Self.pageRow($0, app: app.id) },
            ]
            if let next { values["next"] = next }
            let content = AdminPageTemplates.render("users", values)
            return (title: "Users", content: content)
        }
    }

    @Sendable func user(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await pageGet(request, context) { session, app in
            guard let found = try await admin.store.adminUser(id: AdminController.userId(context), app: app.id) else {
                throw AdminService.noSuchUser
            }
            return (title: "User", content: try await pageUser(found, app: app, csrf: session.csrf))
        }
    }

    @Sendable func revokeSession(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await pagePost(request, context) { session, _ in
            let app = try app(of: context)
            let id = AdminController.userId(context)
            let actor = AdminActor(request, context, keyName: session.keyName)
            try await admin.adminRevokeSession(app: app, id: id, session: context.parameters.get("session") ?? "", by: actor)
            return Self.redirect("/admin/apps/\(app.id)/users/\(AdminController.pathEscaped(id))")
        }
    }

    @Sendable func audit(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await pageGet(request, context) { _, app in
            let q = request.uri.queryParameters
            let event = q.get("event").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
            let user = q.get("user").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
            let before = q.get("before").flatMap { Int64($0) }
            let events = try await admin.store.auditEvents(AuditFilter(appId: app.id, userId: user, event: event, before: before, limit: 100))
            var next: String?
            if events.count == 100, let last = events.last?.id {
                next =
                    "/admin/apps/\(app.id)/audit?"
                    + FormEncoding.encode([("event", event ?? ""), ("user", user ?? ""), ("before", String(last))])
            }
            var values: [String: Any] = [
                "app": app.id, "event": event ?? "", "user": user ?? "", "events": events.map { Self.pageEvent($0) },
            ]
            if let next { values["next"] = next }
            let content = AdminPageTemplates.render("audit", values)
            return (title: "Audit log", content: content)
        }
    }

    @Sendable func disable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await change("disable", request, context)
    }

    @Sendable func enable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await change("enable", request, context)
    }

    @Sendable func delete(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await change("delete", request, context)
    }

    @Sendable func revokeSessions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await change("revoke", request, context)
    }

    /// A change to a user: disable and delete ask first (a form without `confirm=yes` answers a
    /// question).
    private func change(_ action: String, _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        try await pagePost(request, context) { session, form in
            let app = try app(of: context)
            let id = AdminController.userId(context)
            let back = "/admin/apps/\(app.id)/users/\(AdminController.pathEscaped(id))"
            let actor = AdminActor(request, context, keyName: session.keyName)
            if (action == "disable" || action == "delete") && form["confirm"] != "yes" {
                let question = action == "delete" ? "Delete user \(id)?" : "Disable user \(id)?"
                let explanation =
                    action == "delete"
                    ? "Its identities, sessions, API keys and email/password account go with it. This cannot be undone."
                    : "It will not log in, and the tokens it holds are refused, until it is enabled again."
                let content = AdminPageTemplates.render(
                    "confirm",
                    [
                        "question": question, "explanation": explanation, "action": "\(back)/\(action)", "csrf": session.csrf,
                        "verb": action == "delete" ? "Delete" : "Disable", "back": back,
                    ])
                return Self.page(question, content, layout: pageLayout(session, app: app.id))
            }
            switch action {
            case "disable": try await admin.adminSetDisabled(true, app: app, id: id, by: actor)
            case "enable": try await admin.adminSetDisabled(false, app: app, id: id, by: actor)
            case "delete":
                try await admin.adminDelete(app: app, id: id, by: actor)
                return Self.redirect("/admin/apps/\(app.id)/users")
            default: _ = try await admin.adminRevokeSessions(app: app, id: id, by: actor)
            }
            return Self.redirect(back)
        }
    }

    /// The cookie attribute that keeps a cookie set over https off plain http.
    private static func secure(_ verdict: AdminChannel.Verdict) -> String { verdict.isHTTPS ? "; Secure" : "" }

    /// In place of the sign-in form where a key could be read on the way.
    private static func insecure() -> Response {
        Self.page("Sign in", AdminPageTemplates.render("login", ["insecure": true]), layout: [:], status: .forbidden)
    }
}
