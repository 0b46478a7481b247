// SPDX-License-Identifier: Apache-2.0
import AuthStorage
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
extension AdminPageController {
    static let pageCookie = "authsh_admin"
    static let loginCookie = "authsh_admin_login"

    // MARK: Sessions and forms

    /// The signed-in session the request's cookie names, if the request came where a key would
    /// be taken: the cookie stands for the key, and is read on no other channel.
    func pageSession(_ request: Request, _ context: AuthRequestContext) -> AdminPageSessions.Session? {
        guard channel.apiTakesKey(request, context) else { return nil }
        return Self.cookie(Self.pageCookie, request).flatMap { sessions.session($0, now: admin.clock.now) }
    }

    /// A page for a signed-in admin (else to the sign-in page); errors become pages.
    func pageGet(
        _ request: Request, _ context: AuthRequestContext,
        _ body: (AdminPageSessions.Session, AppRuntime) async throws -> (title: String, content: String)
    ) async throws -> Response {
        guard let session = pageSession(request, context) else { return Self.redirect("/admin/login") }
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
    func pagePost(
        _ request: Request, _ context: AuthRequestContext,
        _ body: (AdminPageSessions.Session, [String: String]) async throws -> Response
    ) async throws -> Response {
        guard let session = pageSession(request, context) else { return Self.redirect("/admin/login") }
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

    func pageLayout(_ session: AdminPageSessions.Session, app: String) -> [String: Any] {
        [
            "signedIn": true, "csrf": session.csrf, "keyName": session.keyName, "app": app,
            "apps": admin.apps.keys.sorted().map { ["id": $0, "current": $0 == app] as [String: Any] },
        ]
    }

    static func pageForm(_ request: Request, _ context: AuthRequestContext) async throws -> [String: String] {
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

    /// The app named by the route's `:app` parameter, or 404 `AppNotFound`: resolved here,
    /// not by ``AppMiddleware``, because the page checks its session first and shows errors
    /// as pages.
    func app(of context: AuthRequestContext) throws(ServiceError) -> AppRuntime {
        try AppMiddleware.app(context.parameters.get("app") ?? "", in: admin.apps)
    }

    /// The app the page opens on (the first by id).
    var adminHomeApp: AppRuntime? { admin.apps.keys.min().flatMap { admin.apps[$0] } }

    // MARK: Rendering

    func pageUser(_ found: AdminUserRecord, app: AppRuntime, csrf: String) async throws -> String {
        let u = found.user
        let sessions = try await admin.store.sessions(userId: u.id, app: app.id)
        let keys = try await admin.store.apiKeys(userId: u.id)
        let events = try await admin.store.auditEvents(AuditFilter(appId: app.id, userId: u.id, limit: 50))
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
                "app": app.id, "user": AdminController.pathEscaped(u.id), "csrf": csrf,
            ] as [String: Any]
        }
        values["hasSessions"] = !sessions.isEmpty
        values["apiKeys"] = keys.map { ["name": $0.name, "disabled": $0.disabled] as [String: Any] }
        values["customData"] = u.customData.map { EJSON.document($0).encodedString(.relaxed) } ?? "none"
        values["events"] = events.map { Self.pageEvent($0) }
        return AdminPageTemplates.render("user", values)
    }

    static func pageRow(_ r: AdminUserRecord, app: String) -> [String: Any] {
        let u = r.user
        let emails = Set(u.identities.compactMap(\.email) + [u.data["email"]?.stringValue].compactMap { $0 })
        return [
            "app": app, "id": u.id, "path": AdminController.pathEscaped(u.id), "email": emails.sorted().joined(separator: ", "),
            "providers": u.identities.map(\.providerType).joined(separator: ", "),
            "state": u.disabled ? "disabled" : "enabled", "disabled": u.disabled,
            "created": when(u.createdAt), "lastLogin": when(r.lastLoginAt),
        ]
    }

    static func pageEvent(_ e: AuditEvent) -> [String: Any] {
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
