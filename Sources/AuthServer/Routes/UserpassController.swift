// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The email/password routes of the client API (`auth/providers/local-userpass/...`):
/// registration, confirmation, resets and password changes. Each reads its body, applies the
/// rate limits of its kind, and leaves the rest to ``UserpassService``.
struct UserpassController {
    let userpass: UserpassService
    /// Changes a signed-in user's password.
    let accounts: AccountService
    let abuse: AbuseControls
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
        group.post("change", use: changePassword)
    }

    @Sendable func register(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await RequestBody.read(request, context: context)
        try await userpass.register(
            app: try context.app, email: try body.string("email"), password: try body.string("password"),
            origin: origin.mailLinks(request), address: context.clientAddress)
        return JSONResponse.make([:], status: .created)
    }

    @Sendable func confirm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, body, tokenId) = try await tokenRequest(request, context)
        try await userpass.confirm(app: app, token: try body.string("token"), tokenId: tokenId)
        return JSONResponse.empty
    }

    @Sendable func resendConfirmation(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, email) = try await emailRequest(request, context, rate: .mail)
        try await userpass.resendConfirmation(app: app, email: email, origin: origin.mailLinks(request))
        return JSONResponse.empty
    }

    @Sendable func rerunConfirmation(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, email) = try await emailRequest(request, context, rate: .function)
        try await userpass.rerunConfirmation(app: app, email: email)
        return JSONResponse.empty
    }

    @Sendable func sendReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, email) = try await emailRequest(request, context, rate: .mail)
        try await userpass.sendReset(app: app, email: email, origin: origin.mailLinks(request))
        return JSONResponse.empty
    }

    @Sendable func reset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, body, tokenId) = try await tokenRequest(request, context)
        try await userpass.reset(app: app, token: try body.string("token"), tokenId: tokenId, password: try body.string("password"))
        return JSONResponse.empty
    }

    @Sendable func callReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await RequestBody.read(request, context: context)
        let email = try body.string("email")
        try await abuse.checkRate(.function, app: app, address: context.clientAddress, account: email.lowercased())
        try await userpass.callReset(
            app: app, email: email, password: try body.string("password"), arguments: try FunctionCalls.arguments(body))
        return JSONResponse.empty
    }

    @Sendable func changePassword(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, body) = (try context.app, try await RequestBody.read(request, context: context))
        try await accounts.changePassword(app: app, token: try request.bearerToken(), body: body, address: context.clientAddress)
        return JSONResponse.empty
    }

    /// The app, the body and its `tokenId`, once the rate limit of tokens for that id allows.
    private func tokenRequest(_ request: Request, _ context: AuthRequestContext) async throws -> (AppRuntime, RequestBody, String) {
        let (app, body) = (try context.app, try await RequestBody.read(request, context: context))
        let tokenId = try body.string("tokenId")
        try await abuse.checkRate(.token, app: app, address: context.clientAddress, account: tokenId)
        return (app, body, tokenId)
    }

    /// The app and the body's `email`, once the rate limit of `rate` for that email allows.
    private func emailRequest(_ request: Request, _ context: AuthRequestContext, rate: RateLimits.Route) async throws -> (AppRuntime, String) {
        let app = try context.app
        let email = try await RequestBody.read(request, context: context).string("email")
        try await abuse.checkRate(rate, app: app, address: context.clientAddress, account: email.lowercased())
        return (app, email)
    }
}
