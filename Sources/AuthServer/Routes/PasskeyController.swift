// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The logged-in user's passkeys (`/auth/passkeys`), named by their access token (``CallerMiddleware`` checks it before these run). The answers
/// are plain JSON (numbers as numbers): their options go to `navigator.credentials` as they are.
struct PasskeyController {
    let passkeys: PasskeyService

    /// Adds the routes to `group` (`/api/client/v2.0/auth/passkeys`, its caller checked).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get(use: list)
        group.post("options", use: registrationOptions)
        group.post(use: register)
        group.put(":id", use: rename)
        group.delete(":id", use: remove)
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await passkeys.list(try context.caller), mode: .relaxed)
    }

    @Sendable func registrationOptions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await passkeys.registrationOptions(try context.caller), mode: .relaxed)
    }

    @Sendable func register(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(
            try await passkeys.register(try context.caller, credential: body.document["credential"], name: try body.optionalString("name")),
            status: .created, mode: .relaxed)
    }

    @Sendable func rename(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await InputFields.read(request, context: context)
        return JSONResponse.make(
            try await passkeys.rename(try context.caller, id: context.parameters.get("id") ?? "", name: try body.string("name")), mode: .relaxed)
    }

    @Sendable func remove(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await passkeys.remove(try context.caller, id: context.parameters.get("id") ?? "")
        return JSONResponse.empty
    }
}
