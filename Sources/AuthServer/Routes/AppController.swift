// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The routes of one app that need no user (`/app/:app/...`, the app resolved): where the
/// server is, the keys its tokens are signed with, logins with any provider (and a passkey
/// login's options), the sign-in methods of an email, and calls of the app's functions.
struct AppController {
    let login: LoginService
    /// Checks the access token of a login that links and of a function call.
    let sessions: SessionService
    let passkeys: PasskeyService
    let functionCalls: FunctionCalls
    let tokens: TokenIssuer
    let origin: PublicOrigin

    /// Adds the routes to `group` (`/api/client/v2.0/app/:app`, the app resolved).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get("location", use: location)
        group.get(".well-known/jwks.json", use: keys)
        group.post("auth/providers/:provider/login", use: login)
        group.post("auth/providers/passkey/options", use: passkeyOptions)
        group.post("auth/providers/mfa/sms", use: textMFACode)
        group.get("auth/methods", use: signInMethods)
        group.group().add(middleware: CallerMiddleware(sessions: sessions, token: .access)).post("functions/call", use: callFunction)
    }

    /// `{deployment_model, location, hostname, ws_hostname}`, from the origin the client used.
    @Sendable func location(_ request: Request, context: AuthRequestContext) async throws -> Response {
        _ = try context.app
        let base = origin.clientBaseURL(request, context)
        let ws = base.hasPrefix("https://") ? "wss://" + base.dropFirst(8) : "ws://" + base.dropFirst(7)
        var response = JSONResponse.make([
            "deployment_model": "GLOBAL", "location": "US-VA",
            "hostname": .string(base), "ws_hostname": .string(String(ws)),
        ])
        // Worked out from this request: no cache may hand it to another client.
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The app's token signing keys as a JWKS.
    @Sendable func keys(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(tokens.jwks(app: try context.app.id))
    }

    /// A login (or, with `?link=true` and the user's access token, a link) with the provider
    /// the path names.
    @Sendable func login(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let provider = context.parameters.get("provider") ?? ""
        let linking = request.uri.queryParameters.get("link") == "true"
        let caller = linking ? try await sessions.caller(of: request, context: context) : nil
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(
            try await login.login(app: app, provider: provider, credentials: body, linking: caller, address: context.clientAddress))
    }

    /// `{mfaToken, enrollmentId?}`: texts a code to a phone factor of the login waiting for its
    /// second step (``MFALogin/sendPhoneCode(token:enrollmentId:app:address:)``); the login
    /// then completes at `mfa/login` with that `code`. `{phoneNumber}`, all but its last 4
    /// digits hidden.
    @Sendable func textMFACode(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await InputFields.read(request, context: context)
        do {
            let sent = try await login.mfa.sendPhoneCode(
                token: try body.string("mfaToken"), enrollmentId: try body.optionalString("enrollmentId"), app: app,
                address: context.clientAddress)
            return JSONResponse.make(["phoneNumber": .string(MFALogin.obscured(sent.phoneNumber))])
        } catch let refusal as PhoneCodes.Refusal {
            throw refusal.serviceError
        }
    }

    /// The options of a passkey login (`navigator.credentials.get`), in plain JSON.
    @Sendable func passkeyOptions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await passkeys.loginOptions(app: try context.app, address: context.clientAddress), mode: .relaxed)
    }

    @Sendable func signInMethods(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(
            try await login.signInMethods(
                app: try context.app, email: request.uri.queryParameters.get("email"), address: context.clientAddress))
    }

    @Sendable func callFunction(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(
            try await functionCalls.callFunction(
                try context.caller, name: try body.string("name"), service: try body.optionalString("service"),
                arguments: try body.array("arguments", atMost: FunctionCalls.maxArguments), address: context.clientAddress))
    }
}
