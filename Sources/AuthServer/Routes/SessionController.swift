// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The logged-in user's routes of the client API (`/auth/...`): the profile, the access token's
/// refresh, logout, unlinking, deletion and the user's sessions. Each names its user by the
/// bearer token: a refresh token for the refresh and logout, else an access token, checked
/// once by ``CallerMiddleware``.
struct SessionController {
    let sessions: SessionService
    let accounts: AccountService

    /// Adds the routes to `group` (`/api/client/v2.0/auth`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        // The refresh token is the input of these two, as a password is a login's.
        group.post("session", use: refresh)
        group.delete("session", use: logOut)
        let caller = group.group().add(middleware: CallerMiddleware(sessions: sessions, token: .access))
        caller.get("profile", use: profile)
        caller.post("unlink", use: unlink)
        caller.delete("delete", use: deleteUser)
        caller.get("sessions", use: sessions)
        caller.delete("sessions", use: revokeOtherSessions)
        caller.delete("sessions/:id", use: revokeSession)
    }

    /// The access token's user: `{user_id, domain_id, type, identities, data}`.
    @Sendable func profile(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let caller = try context.caller
        return JSONResponse.make(try await sessions.user(of: caller).profile(app: caller.app))
    }

    /// A new access token for the refresh token's session.
    @Sendable func refresh(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let access = try await sessions.refresh(try request.bearerToken())
        return JSONResponse.make(["access_token": .string(access)], status: .created)
    }

    /// Ends the refresh token's session.
    @Sendable func logOut(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await sessions.logOut(refreshToken: try request.bearerToken())
        return JSONResponse.empty
    }

    @Sendable func unlink(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(
            try await accounts.unlink(try context.caller, providerType: try body.string("provider_type"), id: try body.string("id")))
    }

    @Sendable func deleteUser(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await accounts.deleteUser(try context.caller)
        return JSONResponse.empty
    }

    @Sendable func sessions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await accounts.sessions(try context.caller))
    }

    @Sendable func revokeOtherSessions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await accounts.revokeOtherSessions(try context.caller))
    }

    @Sendable func revokeSession(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await accounts.revokeSession(try context.caller, id: context.parameters.get("id") ?? "")
        return JSONResponse.empty
    }
}
