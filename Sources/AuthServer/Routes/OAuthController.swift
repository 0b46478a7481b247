// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The routes of the `oauth2-*` providers' flows: the start of the redirect flow, the start of
/// the device flow, and the callback the identity provider sends the browser back to (a GET,
/// or a form POST from Apple). The flows themselves are in `OAuthWebFlow.swift`.
struct OAuthController {
    let apps: [String: AppRuntime]
    let flows: OAuthFlows
    let clock: ServerClock
    let login: LoginService
    let sessions: SessionService
    let abuse: AbuseControls
    let origin: PublicOrigin
    /// Tells whether the request came over https (the link-binding cookie's `Secure`).
    let adminChannel: AdminChannel

    /// Adds the routes under the client API.
    func addRoutes(to router: Router<AuthRequestContext>) {
        let provider = router.group(RouterPath(Routes.base + "/app/:app/auth/providers/:provider"))
            .add(middleware: AppMiddleware(apps: apps))
        provider.get("login", use: startRedirect)
        provider.post("device", use: startDevice)
        let callback = RouterPath(Routes.base + "/auth/callback")
        router.get(callback, use: callbackQuery)
        router.post(callback, use: callbackForm)
    }

    /// Sends the browser to the identity provider (`?redirect=&state=`, PKCE for loopback).
    @Sendable func startRedirect(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await redirectToProvider(request, context)
    }

    /// A device authorization: the code to show and where to enter it.
    @Sendable func startDevice(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, provider) = try oauthProvider(context)
        try await abuse.checkRate(.login, app: app, address: context.clientAddress)
        let body = try await RequestBody.read(request, context: context)
        var scopes: [String]?
        if case .array(let list)? = body.document["scopes"] { scopes = list.compactMap(\.stringValue) }
        return JSONResponse.make(try await provider.startDevice(scopes: scopes), mode: .relaxed)
    }

    @Sendable func callbackQuery(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await finishSignIn(FormRequest.query(request), request, context)
    }

    /// Apple answers with a form post when it is asked for the name or email.
    @Sendable func callbackForm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await finishSignIn(try await FormRequest.form(request, context), request, context)
    }
}
