// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// A user's API keys (`/auth/api_keys`), named by the user's refresh token, as App Services
/// has it.
struct APIKeyController {
    let sessions: SessionService
    let apiKeys: APIKeyService

    /// Adds the routes to `group` (`/api/client/v2.0/auth/api_keys`).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: fetch)
        group.delete(":id", use: delete)
        group.put(":id/enable", use: enable)
        group.put(":id/disable", use: disable)
    }

    /// A new key: `{_id, key, name, disabled}`; the secret `key` only here. For a user with a
    /// second factor, only from a recent login that used it (``SessionService/apiKeyMaker(_:)``).
    @Sendable func create(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (app, user) = try await sessions.apiKeyMaker(try request.bearerToken())
        let body = try await RequestBody.read(request, context: context)
        let (record, key) = try await apiKeys.create(app: app, user: user, name: try body.string("name"))
        return JSONResponse.make(
            ["_id": .string(record.id), "key": .string(key), "name": .string(record.name), "disabled": false], status: .created)
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let user = try await self.user(request)
        return JSONResponse.make(.array(try await apiKeys.list(user: user).map(APIKeyService.describe)))
    }

    @Sendable func fetch(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(APIKeyService.describe(try await apiKeys.key(id: Self.id(context), user: try await user(request))))
    }

    @Sendable func delete(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await apiKeys.delete(id: Self.id(context), user: try await user(request))
        return JSONResponse.empty
    }

    /// Enables a key: as making one, since an enabled key logs in with no second factor.
    @Sendable func enable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await apiKeys.setDisabled(false, id: Self.id(context), user: try await sessions.apiKeyMaker(try request.bearerToken()).1)
        return JSONResponse.empty
    }

    @Sendable func disable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await apiKeys.setDisabled(true, id: Self.id(context), user: try await user(request))
        return JSONResponse.empty
    }

    /// The refresh token's user.
    private func user(_ request: Request) async throws -> UserRecord {
        try await sessions.sessionOfRefreshToken(try request.bearerToken()).2
    }

    private static func id(_ context: AuthRequestContext) -> String { context.parameters.get("id") ?? "" }
}
