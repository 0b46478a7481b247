// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The logged-in user's second factors (`/auth/mfa`), named by their access token (``CallerMiddleware`` checks it before these run).
struct MFAController {
    let factors: SecondFactorService

    /// Adds the routes to `group` (`/api/client/v2.0/auth/mfa`, its caller checked).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get(use: list)
        group.post("totp", use: startTOTP)
        group.post("totp/confirm", use: confirmTOTP)
        group.delete("totp", use: removeTOTP)
        group.post("recovery_codes", use: replaceRecoveryCodes)
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await factors.list(try context.caller))
    }

    @Sendable func startTOTP(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await factors.startTOTP(try context.caller), status: .created)
    }

    @Sendable func confirmTOTP(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(try await factors.confirmTOTP(try context.caller, code: try body.string("code")))
    }

    @Sendable func removeTOTP(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await factors.removeTOTP(try context.caller)
        return JSONResponse.empty
    }

    @Sendable func replaceRecoveryCodes(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await factors.replaceRecoveryCodes(try context.caller), status: .created)
    }
}
