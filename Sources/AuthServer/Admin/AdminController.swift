// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird

/// The admin API's user routes (`/api/admin/v1/apps/:app/...`, the key checked and the app
/// resolved): list, read, disable, enable, delete, revoke, custom data, second factors,
/// resets and confirmations. Each change is one of ``AdminService``'s actions, audited as the key's.
struct AdminController {
    let admin: AdminService

    /// Adds the routes to `group` (the app's group of the admin API).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("users", use: users)
        group.get("users/:id", use: user)
        group.post("users/:id/disable", use: disable)
        group.post("users/:id/enable", use: enable)
        group.delete("users/:id", use: delete)
        group.delete("users/:id/sessions", use: revokeSessions)
        group.put("users/:id/custom_data", use: setCustomData)
        group.post("users/:id/reset", use: sendReset)
        group.get("users/:id/factors", use: factors)
        group.delete("users/:id/factors/totp", use: removeTOTP)
        group.delete("users/:id/factors/phone/:enrollmentId", use: removePhone)
        group.post("confirm", use: confirm)
        group.get("triggers", use: triggerRuns)
    }

    /// `{"users": [...], "next": cursor or null}`, filtered and paged by the query.
    @Sendable func users(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let query = try UserQuery(parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
        let users = try await admin.store.listUsers(app: app.id, query: query)
        let next: EJSON = users.count == query.limit ? users.last.map { .string($0.user.id) } ?? .null : .null
        return AdminRoutes.json(["users": .array(users.map(AdminService.adminUser)), "next": next])
    }

    /// The user with identities, sessions, API key names and recent audit events.
    @Sendable func user(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, found) = try await admin.target(context)
        return AdminRoutes.json(try await admin.adminDetails(found, app: app))
    }

    @Sendable func disable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await setDisabled(true, request, context)
    }

    @Sendable func enable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await setDisabled(false, request, context)
    }

    @Sendable func delete(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let id = Self.id(context)
        try await admin.adminDelete(app: try context.app, id: id, by: AdminActor(request, context))
        return AdminRoutes.json(["id": .string(id), "deleted": true])
    }

    @Sendable func revokeSessions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let revoked = try await admin.adminRevokeSessions(app: try context.app, id: Self.id(context), by: AdminActor(request, context))
        return AdminRoutes.json(["revoked": .int64(Int64(revoked))])
    }

    /// Sets the user's custom data: a JSON object, or null to remove it.
    @Sendable func setCustomData(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, found) = try await admin.target(context)
        let body = try await AdminRoutes.body(request, context)
        let changed = try await admin.adminSetCustomData(body, app: app, user: found, by: AdminActor(request, context))
        return AdminRoutes.json(try await admin.adminDetails(changed, app: app))
    }

    /// Sends the reset mail of the user's email/password account.
    @Sendable func sendReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, found) = try await admin.target(context)
        try await admin.adminSendReset(app: app, user: found, by: AdminActor(request, context))
        return AdminRoutes.json(["sent": true])
    }

    /// The user's second factors: `{"factors": [...], "recoveryCodes": N}`.
    @Sendable func factors(_ request: Request, context: AuthRequestContext) async throws -> Response {
        AdminRoutes.json(try await admin.adminSecondFactors(app: try context.app, id: Self.id(context)))
    }

    /// Removes the user's TOTP factor and recovery codes.
    @Sendable func removeTOTP(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let id = Self.id(context)
        try await admin.adminRemoveTOTP(app: try context.app, id: id, by: AdminActor(request, context))
        return AdminRoutes.json(["id": .string(id), "removed": "totp"])
    }

    /// Removes one of the user's phone factors (they lost that phone).
    @Sendable func removePhone(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let id = Self.id(context)
        let enrollment = context.parameters.get("enrollmentId") ?? ""
        try await admin.adminRemovePhoneFactor(app: try context.app, id: id, enrollmentId: enrollment, by: AdminActor(request, context))
        return AdminRoutes.json(["id": .string(id), "removed": "phone", "enrollmentId": .string(enrollment)])
    }

    /// Confirms the pending email/password account of `{"email"}`.
    @Sendable func confirm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        guard case .document(let body) = try await AdminRoutes.body(request, context), case .string(let email)? = body["email"],
            !email.isEmpty
        else {
            throw ServiceError(.missingParameter, "expected {\"email\": ...}")
        }
        let confirmed = try await admin.adminConfirm(email: email, app: app, by: AdminActor(request, context))
        return AdminRoutes.json(["email": .string(confirmed), "confirmed": true])
    }

    /// The app's recent trigger runs, newest first (`?state=failed` for the runs given up).
    @Sendable func triggerRuns(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let query = try TriggerRunQuery(request)
        let runs = try await admin.store.triggerRuns(app: app.id, state: query.state, limit: query.limit)
        return AdminRoutes.json(["runs": .array(runs.map(TriggerRunner.json))])
    }

    private func setDisabled(_ disabled: Bool, _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let id = Self.id(context)
        try await admin.adminSetDisabled(disabled, app: try context.app, id: id, by: AdminActor(request, context))
        return AdminRoutes.json(["id": .string(id), "disabled": .bool(disabled)])
    }

    private static func id(_ context: AuthRequestContext) -> String { userId(context) }

    /// The user id the path names, percent-decoded: ids of other systems hold characters a path
    /// escapes (`auth0|...`, a Firebase uid); the router hands the parameter over undecoded.
    /// A malformed escape is kept as written (no user has such an id).
    static func userId(_ context: AuthRequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        guard raw.utf8.contains(UInt8(ascii: "%")) else { return raw }
        var out: [UInt8] = []
        var bytes = raw.utf8[...]
        while let c = bytes.popFirst() {
            if c == UInt8(ascii: "%"), bytes.count >= 2, let hi = Hex.value(bytes[bytes.startIndex]),
                let lo = Hex.value(bytes[bytes.index(after: bytes.startIndex)])
            {
                out.append(hi << 4 | lo)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(c)
            }
        }
        return String(validating: out, as: UTF8.self) ?? raw
    }

    /// `id` as one path segment: every byte but letters, digits and `-._~` percent-escaped.
    static func pathEscaped(_ id: String) -> String {
        var out = ""
        for byte in id.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.append(Character(UnicodeScalar(byte)))
            default: out += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return out
    }
}
