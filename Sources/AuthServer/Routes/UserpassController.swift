// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The email/password routes of the client API (`auth/providers/local-userpass/...`):
/// registration, confirmation, resets and password changes. Each reads its body and leaves the
/// rest (rate limits included) to ``UserpassService``.
struct UserpassController {
    let userpass: UserpassService
    /// Changes a signed-in user's password.
    let accounts: AccountService
    /// Checks the access token of a password change.
    let sessions: SessionService
    let origin: PublicOrigin

    /// Adds the routes to `group` (`/app/:app/auth/providers/local-userpass`, the app resolved).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.post("register", use: register)
        group.post("confirm", use: confirm)
        group.post("confirm/send", use: resendConfirmation)
        group.post("confirm/call", use: rerunConfirmation)
        group.post("reset/send", use: sendReset)
        group.post("reset", use: reset)
        group.post("reset/call", use: callReset)
        group.group().add(middleware: CallerMiddleware(sessions: sessions, token: .access)).post("change", use: changePassword)
    }

    @Sendable func register(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        try await userpass.register(
            app: try context.app, email: try body.string("email"), password: try body.string("password"),
            origin: origin.mailLinks(request), address: context.clientAddress)
        return JSONResponse.make([:], status: .created)
    }

    @Sendable func confirm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        try await userpass.confirm(
            app: try context.app, token: try body.string("token"), tokenId: try body.string("tokenId"), address: context.clientAddress)
        return JSONResponse.empty
    }

    @Sendable func resendConfirmation(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let email = try await InputFields.read(request, context: context).string("email")
        try await userpass.resendConfirmation(
            app: try context.app, email: email, origin: origin.mailLinks(request), address: context.clientAddress)
        return JSONResponse.empty
    }

    @Sendable func rerunConfirmation(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let email = try await InputFields.read(request, context: context).string("email")
        try await userpass.rerunConfirmation(app: try context.app, email: email, address: context.clientAddress)
        return JSONResponse.empty
    }

    @Sendable func sendReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let email = try await InputFields.read(request, context: context).string("email")
        try await userpass.sendReset(app: try context.app, email: email, origin: origin.mailLinks(request), address: context.clientAddress)
        return JSONResponse.empty
    }

    @Sendable func reset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        try await userpass.reset(
            app: try context.app, token: try body.string("token"), tokenId: try body.string("tokenId"),
            password: try body.string("password"), address: context.clientAddress)
        return JSONResponse.empty
    }

    @Sendable func callReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        try await userpass.callReset(
            app: try context.app, email: try body.string("email"), password: try body.string("password"),
            arguments: try body.array("arguments", atMost: FunctionCalls.maxArguments), address: context.clientAddress)
        return JSONResponse.empty
    }

    /// A signed-in user's new password (the route takes the user's access token).
    @Sendable func changePassword(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        try await accounts.changePassword(
            try context.caller, password: try body.string("password"), newPassword: try body.string("newPassword"),
            address: context.clientAddress)
        return JSONResponse.empty
    }
}
