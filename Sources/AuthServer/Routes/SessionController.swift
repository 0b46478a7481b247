// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The logged-in user's routes of the client API (`/auth/...`): the profile, the access token's
/// refresh, logout, unlinking, deletion and the user's sessions. Each names its user by the
/// bearer token (an access token or a refresh token, as App Services has it).
struct SessionController {
    let sessions: SessionService
    let accounts: AccountService

    /// Adds the routes to `group` (`/api/client/v2.0/auth`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("profile", use: profile)
        group.post("session", use: refresh)
        group.delete("session", use: logOut)
        group.post("unlink", use: unlink)
        group.delete("delete", use: deleteUser)
        group.get("sessions", use: sessions)
        group.delete("sessions", use: revokeOtherSessions)
        group.delete("sessions/:id", use: revokeSession)
    }

    /// The access token's user: `{user_id, domain_id, type, identities, data}`.
    @Sendable func profile(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, user, _) = try await sessions.userOfAccessToken(try request.bearerToken())
        return JSONResponse.make(user.profile(app: app))
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
        let body = try await RequestBody.read(request, context: context)
        return JSONResponse.make(try await accounts.unlink(token: try request.bearerToken(), body: body))
    }

    @Sendable func deleteUser(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await accounts.deleteUser(token: try request.bearerToken())
        return JSONResponse.empty
    }

    @Sendable func sessions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await accounts.sessions(token: try request.bearerToken()))
    }

    @Sendable func revokeOtherSessions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await accounts.revokeOtherSessions(token: try request.bearerToken()))
    }

    @Sendable func revokeSession(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await accounts.revokeSession(token: try request.bearerToken(), id: context.parameters.get("id") ?? "")
        return JSONResponse.empty
    }
}
