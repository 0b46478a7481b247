// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// The logged-in user's passkeys (`/auth/passkeys`), named by their access token. The answers
/// are plain JSON (numbers as numbers): their options go to `navigator.credentials` as they are.
struct PasskeyController {
    let passkeys: PasskeyService

    /// Adds the routes to `group` (`/api/client/v2.0/auth/passkeys`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.get(use: list)
        group.post("options", use: registrationOptions)
        group.post(use: register)
        group.put(":id", use: rename)
        group.delete(":id", use: remove)
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await passkeys.list(token: try request.bearerToken()), mode: .relaxed)
    }

    @Sendable func registrationOptions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(try await passkeys.registrationOptions(token: try request.bearerToken()), mode: .relaxed)
    }

    @Sendable func register(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await RequestBody.read(request, context: context)
        return JSONResponse.make(try await passkeys.register(token: try request.bearerToken(), body: body), status: .created, mode: .relaxed)
    }

    @Sendable func rename(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await RequestBody.read(request, context: context)
        return JSONResponse.make(
            try await passkeys.rename(token: try request.bearerToken(), id: context.parameters.get("id") ?? "", body: body), mode: .relaxed)
    }

    @Sendable func remove(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await passkeys.remove(token: try request.bearerToken(), id: context.parameters.get("id") ?? "")
        return JSONResponse.empty
    }
}
