import AuthProtocol
import HTTPTypes
import Hummingbird
import NIOCore

/// The admin page at `/admin` (present only with `adminKeys`): sign in with an admin key, find
/// users, open one (identities, sessions with revoke, API keys, custom data, audit events),
/// disable, enable or delete it (disable and delete ask first), and read the audit log.
///
/// Server-rendered HTML without a line of script. A sign-in is a session cookie (HttpOnly,
/// SameSite=Strict, `Secure` over https, path `/admin`); every form carries the
/// session's CSRF token (the sign-in form a token of its own, paired with a cookie), and a post
/// without it is refused (403). Every answer forbids framing, caching and any script or inline
/// style (Content-Security-Policy).
///
/// An admin key is taken only where nobody on the way can read it (``AdminChannel``: over
/// https, or from this machine with no proxy between). Anywhere else the sign-in page explains
/// instead of asking, and a posted key is refused (403) without being looked at.
extension AuthService {
    static let pageCookie = "authsh_admin"
    static let loginCookie = "authsh_admin_login"

    func addAdminPage(to router: Router<AuthRequestContext>, keys: AdminKeys, sessions: AdminPageSessions) {
        let channel = adminChannel
        /// The cookie attribute that keeps a cookie set over https off plain http.
        @Sendable func secure(_ verdict: AdminChannel.Verdict) -> String { verdict.isHTTPS ? "; Secure" : "" }
        /// In place of the sign-in form where a key could be read on the way.
        @Sendable func insecure() -> Response {
            Self.page("Sign in", AdminPageTemplates.render("login", ["insecure": true]), layout: [:], status: .forbidden)
        }
        router.get("admin/style.css") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/css; charset=utf-8", .cacheControl: "max-age=300",
                    .xContentTypeOptions: "nosniff",
                ],
                body: .init(byteBuffer: ByteBuffer(string: AdminPageTemplates.css)))
        }
        router.get("admin/favicon.svg") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400", .xContentTypeOptions: "nosniff"],
                body: .init(byteBuffer: ByteBuffer(string: AdminPageTemplates.icon)))
        }
        router.get("admin") { request, context in
            guard self.pageSession(request, context, sessions) != nil else { return Self.redirect("/admin/login") }
            return Self.redirect("/admin/apps/\(self.adminHomeApp?.id ?? "local")/users")
        }
        router.get("admin/login") { request, context in
            let verdict = channel.verdict(request, context)
            guard let action = channel.signInAction(verdict) else { return insecure() }
            let token = Secrets.randomHex(bytes: 32)
            var response = Self.page("Sign in", AdminPageTemplates.render("login", ["csrf": token, "action": action]), layout: [:])
            response.headers.append(
                HTTPField(
                    name: .setCookie, value: "\(Self.loginCookie)=\(token); Path=/admin; HttpOnly; SameSite=Strict; Max-Age=3600\(secure(verdict))"))
            return response
        }
        router.post("admin/login") { request, context in
            let verdict = channel.verdict(request, context)
            guard channel.acceptsKey(verdict, request) else { return insecure() }
            let form = try await Self.pageForm(request, context)
            guard let token = form["csrf"], let cookie = Self.cookie(Self.loginCookie, request),
                Secrets.constantTimeEqual(Array(token.utf8), Array(cookie.utf8))
            else {
                return Self.forbidden()
            }
            // The page serves every app; its sign-ins are recorded under the one it opens on.
            let home = self.adminHomeApp
            guard let name = keys.name(of: form["key"] ?? "") else {
                if let home {
                    await self.adminRefused(app: home, from: AdminActor(request, context), code: ServiceErrorCode.invalidAdminKey.rawValue)
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
                        value: "\(Self.loginCookie)=\(again); Path=/admin; HttpOnly; SameSite=Strict; Max-Age=3600\(secure(verdict))"))
                return response
            }
            if let home { await self.adminRecord("admin_signed_in", app: home, user: nil, by: AdminActor(request, context, keyName: name)) }
            let (id, _) = sessions.start(keyName: name, now: self.clock.now)
            var response = Self.redirect("/admin")
            response.headers.append(
                HTTPField(name: .setCookie, value: "\(Self.pageCookie)=\(id); Path=/admin; HttpOnly; SameSite=Strict\(secure(verdict))"))
            response.headers.append(
                HTTPField(name: .setCookie, value: "\(Self.loginCookie)=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0\(secure(verdict))"))
            return response
        }
        router.post("admin/logout") { request, context in
            let verdict = channel.verdict(request, context)
            return try await self.pagePost(request, context, sessions) { _, _ in
                if let id = Self.cookie(Self.pageCookie, request) { sessions.end(id) }
                var response = Self.redirect("/admin/login")
                response.headers.append(
                    HTTPField(name: .setCookie, value: "\(Self.pageCookie)=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0\(secure(verdict))"))
                return response
            }
        }
        router.get("admin/apps/:app/users") { request, context in
            try await self.pageGet(request, context, sessions) { session, app in
                let q = request.uri.queryParameters
                var query = UserQuery()
                query.limit = 50
                let email = q.get("email").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
                query.emailPrefix = email?.lowercased()
                let state = q.get("state").map { String($0) } ?? ""
                if state == "enabled" || state == "disabled" { query.disabled = state == "disabled" }
                if let cursor = q.get("cursor").map({ String($0) }), cursor.utf8.count == 24 { query.after = cursor }
                let users = try await self.store.listUsers(app: app.id, query: query)
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
        router.get("admin/apps/:app/users/:id") { request, context in
            try await self.pageGet(request, context, sessions) { session, app in
                guard let found = try await self.store.adminUser(id: context.parameters.get("id") ?? "", app: app.id) else {
                    throw Self.noSuchUser
                }
                return (title: "User", content: try await self.pageUser(found, app: app, csrf: session.csrf))
            }
        }
        // Changes: disable and delete ask first (a form without `confirm=yes` answers a question).
        for action in ["disable", "enable", "delete", "revoke"] {
            router.post("admin/apps/:app/users/:id/\(action)") { request, context in
                try await self.pagePost(request, context, sessions) { session, form in
                    let app = try self.app(of: context)
                    let id = context.parameters.get("id") ?? ""
                    let back = "/admin/apps/\(app.id)/users/\(id)"
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
                        return Self.page(question, content, layout: self.pageLayout(session, app: app.id))
                    }
                    switch action {
                    case "disable": try await self.adminSetDisabled(true, app: app, id: id, by: actor)
                    case "enable": try await self.adminSetDisabled(false, app: app, id: id, by: actor)
                    case "delete":
                        try await self.adminDelete(app: app, id: id, by: actor)
                        return Self.redirect("/admin/apps/\(app.id)/users")
                    default: _ = try await self.adminRevokeSessions(app: app, id: id, by: actor)
                    }
                    return Self.redirect(back)
                }
            }
        }
        router.post("admin/apps/:app/users/:id/sessions/:session/revoke") { request, context in
            try await self.pagePost(request, context, sessions) { session, _ in
                let app = try self.app(of: context)
                let id = context.parameters.get("id") ?? ""
                let actor = AdminActor(request, context, keyName: session.keyName)
                try await self.adminRevokeSession(app: app, id: id, session: context.parameters.get("session") ?? "", by: actor)
                return Self.redirect("/admin/apps/\(app.id)/users/\(id)")
            }
        }
        router.get("admin/apps/:app/audit") { request, context in
            try await self.pageGet(request, context, sessions) { _, app in
                let q = request.uri.queryParameters
                let event = q.get("event").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
                let user = q.get("user").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
                let before = q.get("before").flatMap { Int64($0) }
                let events = try await self.store.auditEvents(AuditFilter(appId: app.id, userId: user, event: event, before: before, limit: 100))
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
    }

    // MARK: Sessions and forms

    /// The signed-in session the request's cookie names, if the request came where a key would
    /// be taken: the cookie stands for the key, and is read on no other channel.
    private func pageSession(_ request: Request, _ context: AuthRequestContext, _ sessions: AdminPageSessions) -> AdminPageSessions.Session? {
        guard adminChannel.apiTakesKey(request, context) else { return nil }
        return Self.cookie(Self.pageCookie, request).flatMap { sessions.session($0, now: clock.now) }
    }

    /// A page for a signed-in admin (else to the sign-in page); errors become pages.
    private func pageGet(
        _ request: Request, _ context: AuthRequestContext, _ sessions: AdminPageSessions,
        _ body: (AdminPageSessions.Session, AppRuntime) async throws -> (title: String, content: String)
    ) async throws -> Response {
        guard let session = pageSession(request, context, sessions) else { return Self.redirect("/admin/login") }
        do {
            let app = try app(of: context)
            let (title, content) = try await body(session, app)
            return Self.page(title, content, layout: pageLayout(session, app: app.id))
        } catch let error as ServiceError {
            return Self.page(
                "Not found", AdminPageTemplates.render("message", ["title": "Not found", "message": error.message]),
                layout: pageLayout(session, app: context.parameters.get("app") ?? ""), status: .init(code: error.status))
        }
    }

    /// A form post of a signed-in admin with the session's CSRF token (else 403); errors become pages.
    private func pagePost(
        _ request: Request, _ context: AuthRequestContext, _ sessions: AdminPageSessions,
        _ body: (AdminPageSessions.Session, [String: String]) async throws -> Response
    ) async throws -> Response {
        guard let session = pageSession(request, context, sessions) else { return Self.redirect("/admin/login") }
        let form = try await Self.pageForm(request, context)
        guard let token = form["csrf"], Secrets.constantTimeEqual(Array(token.utf8), Array(session.csrf.utf8)) else { return Self.forbidden() }
        do {
            return try await body(session, form)
        } catch let error as ServiceError {
            return Self.page(
                "Refused", AdminPageTemplates.render("message", ["title": "Refused", "message": error.message]),
                layout: pageLayout(session, app: context.parameters.get("app") ?? ""), status: .init(code: error.status))
        }
    }

    private func pageLayout(_ session: AdminPageSessions.Session, app: String) -> [String: Any] {
        [
            "signedIn": true, "csrf": session.csrf, "keyName": session.keyName, "app": app,
            "apps": apps.keys.sorted().map { ["id": $0, "current": $0 == app] as [String: Any] },
        ]
    }

    private static func pageForm(_ request: Request, _ context: AuthRequestContext) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 64 << 10)
        var fields: [String: String] = [:]
        for (key, value) in FormEncoding.decode(String(buffer: body)) ?? [] where fields[key] == nil { fields[key] = value }
        return fields
    }

    static func cookie(_ name: String, _ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingPrefix(" ")
                if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    /// The app the page opens on (the first by id).
    private var adminHomeApp: AppRuntime? { apps.keys.min().flatMap { apps[$0] } }

    // MARK: Rendering

    private func pageUser(_ found: AdminUserRecord, app: AppRuntime, csrf: String) async throws -> String {
        let u = found.user
        let sessions = try await store.sessions(userId: u.id, app: app.id)
        let keys = try await store.apiKeys(userId: u.id)
        let events = try await store.auditEvents(AuditFilter(appId: app.id, userId: u.id, limit: 50))
        var values = Self.pageRow(found, app: app.id)
        values["csrf"] = csrf
        values["identities"] = u.identities.map { i -> [String: Any] in
            var d: [String: Any] = ["providerType": i.providerType, "externalId": i.externalId]
            // Not `email`: a section looks a missing key up in the user's values.
            if let email = i.email { d["identityEmail"] = email }
            return d
        }
        values["sessions"] = sessions.map { s in
            [
                "id": s.id, "providerType": s.providerType, "created": Self.when(s.createdAt), "lastUsed": Self.when(s.lastUsed),
                "app": app.id, "user": u.id, "csrf": csrf,
            ] as [String: Any]
        }
        values["hasSessions"] = !sessions.isEmpty
        values["apiKeys"] = keys.map { ["name": $0.name, "disabled": $0.disabled] as [String: Any] }
        values["customData"] = u.customData.map { EJSON.document($0).encodedString(.relaxed) } ?? "none"
        values["events"] = events.map { Self.pageEvent($0) }
        return AdminPageTemplates.render("user", values)
    }

    private static func pageRow(_ r: AdminUserRecord, app: String) -> [String: Any] {
        let u = r.user
        let emails = Set(u.identities.compactMap(\.email) + [u.data["email"]?.stringValue].compactMap { $0 })
        return [
            "app": app, "id": u.id, "email": emails.sorted().joined(separator: ", "),
            "providers": u.identities.map(\.providerType).joined(separator: ", "),
            "state": u.disabled ? "disabled" : "enabled", "disabled": u.disabled,
            "created": when(u.createdAt), "lastLogin": when(r.lastLoginAt),
        ]
    }

    private static func pageEvent(_ e: AuditEvent) -> [String: Any] {
        var d: [String: Any] = [
            "time": when(e.time), "event": e.event, "outcome": e.outcome, "app": e.appId,
            "provider": e.provider ?? "", "address": e.address ?? "", "actor": e.actor ?? "", "detail": e.detail ?? "",
        ]
        // Not `user`: a section looks a missing key up in the page's values (the filter).
        if let user = e.userId { d["eventUser"] = user }
        return d
    }

    /// `2026-11-25 04:57 UTC`, or `never`.
    static func when(_ seconds: Int64?) -> String {
        guard let seconds else { return "never" }
        let iso = ISODate.format(milliseconds: seconds * 1000)
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(5) + " UTC"
    }

    static func page(_ title: String, _ content: String, layout: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        var values = layout
        values["title"] = title
        values["content"] = content
        return Response(
            status: status, headers: pageHeaders(), body: .init(byteBuffer: ByteBuffer(string: AdminPageTemplates.render("layout", values))))
    }

    static func redirect(_ location: String) -> Response {
        var headers = pageHeaders()
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    static func forbidden() -> Response {
        page(
            "Refused",
            AdminPageTemplates.render(
                "message",
                [
                    "title": "Refused",
                    "message": "This form did not come from this page, or it expired (no CSRF token, or a wrong one). Go back, reload and try again.",
                ]), layout: [:], status: .forbidden)
    }

    static func pageHeaders() -> HTTPFields {
        [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
            .xFrameOptions: "DENY", .referrerPolicy: "no-referrer",
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ]
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
