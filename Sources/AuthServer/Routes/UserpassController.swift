import AuthProtocol
import Hummingbird

/// The email/password routes of the client API (`auth/providers/local-userpass/...`):
/// registration, confirmation, resets and password changes. Each reads its body, applies the
/// rate limits of its kind, and leaves the rest to ``AuthService``.
struct UserpassController {
    let service: AuthService

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
        try await service.register(
            app: try context.app, email: try body.string("email"), password: try body.string("password"),
            origin: service.origin(request), address: context.clientAddress)
        return JSONResponse.make([:], status: .created)
    }

    @Sendable func confirm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, body, tokenId) = try await tokenRequest(request, context)
        try await service.confirm(app: app, token: try body.string("token"), tokenId: tokenId)
        return JSONResponse.empty
    }

    @Sendable func resendConfirmation(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, email) = try await emailRequest(request, context, rate: .mail)
        try await service.resendConfirmation(app: app, email: email, origin: service.origin(request))
        return JSONResponse.empty
    }

    @Sendable func rerunConfirmation(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, email) = try await emailRequest(request, context, rate: .function)
        try await service.rerunConfirmation(app: app, email: email)
        return JSONResponse.empty
    }

    @Sendable func sendReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, email) = try await emailRequest(request, context, rate: .mail)
        try await service.sendReset(app: app, email: email, origin: service.origin(request))
        return JSONResponse.empty
    }

    @Sendable func reset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, body, tokenId) = try await tokenRequest(request, context)
        try await service.reset(app: app, token: try body.string("token"), tokenId: tokenId, password: try body.string("password"))
        return JSONResponse.empty
    }

    @Sendable func callReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await RequestBody.read(request, context: context)
        let email = try body.string("email")
        try service.checkRate(.function, app: app, address: context.clientAddress, account: email.lowercased())
        try await service.callReset(
            app: app, email: email, password: try body.string("password"), arguments: try AuthService.arguments(body))
        return JSONResponse.empty
    }

    @Sendable func changePassword(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, body) = (try context.app, try await RequestBody.read(request, context: context))
        try await service.changePassword(app: app, token: try request.bearerToken(), body: body, address: context.clientAddress)
        return JSONResponse.empty
    }

    /// The app, the body and its `tokenId`, once the rate limit of tokens for that id allows.
    private func tokenRequest(_ request: Request, _ context: AuthRequestContext) async throws -> (AppRuntime, RequestBody, String) {
        let (app, body) = (try context.app, try await RequestBody.read(request, context: context))
        let tokenId = try body.string("tokenId")
        try service.checkRate(.token, app: app, address: context.clientAddress, account: tokenId)
        return (app, body, tokenId)
    }

    /// The app and the body's `email`, once the rate limit of `rate` for that email allows.
    private func emailRequest(_ request: Request, _ context: AuthRequestContext, rate: RateLimits.Route) async throws -> (AppRuntime, String) {
        let app = try context.app
        let email = try await RequestBody.read(request, context: context).string("email")
        try service.checkRate(rate, app: app, address: context.clientAddress, account: email.lowercased())
        return (app, email)
    }
}
