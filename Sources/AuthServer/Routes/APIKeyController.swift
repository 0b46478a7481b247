// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird

/// A user's API keys (`/auth/api_keys`), named by the user's refresh token, as App Services
/// has it (``CallerMiddleware`` checks it before these run).
struct APIKeyController {
    let apiKeys: APIKeyService

    /// Adds the routes to `group` (`/api/client/v2.0/auth/api_keys`, its caller checked).
    func addRoutes(to group: RouterGroup<AuthRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: fetch)
        group.delete(":id", use: delete)
        group.put(":id/enable", use: enable)
        group.put(":id/disable", use: disable)
    }

    /// A new key: `{_id, key, name, disabled}`; the secret `key` only here. For a user with a
    /// second factor, only from a recent login that used it (``APIKeyService/create(_:name:)``).
    @Sendable func create(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let caller = try context.sessionCaller
        let body = try await InputFields.read(request, context: context)
        let (record, key) = try await apiKeys.create(caller, name: try body.string("name"))
        return JSONResponse.make(
            ["_id": .string(record.id), "key": .string(key), "name": .string(record.name), "disabled": false], status: .created)
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(.array(try await apiKeys.list(user: try context.sessionCaller.user).map(APIKeyService.describe)))
    }

    @Sendable func fetch(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(APIKeyService.describe(try await apiKeys.key(id: Self.id(context), user: try context.sessionCaller.user)))
    }

    @Sendable func delete(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await apiKeys.delete(id: Self.id(context), user: try context.sessionCaller.user)
        return JSONResponse.empty
    }

    @Sendable func enable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await apiKeys.enable(try context.sessionCaller, id: Self.id(context))
        return JSONResponse.empty
    }

    @Sendable func disable(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await apiKeys.setDisabled(true, id: Self.id(context), user: try context.sessionCaller.user)
        return JSONResponse.empty
    }

    private static func id(_ context: AuthRequestContext) -> String { context.parameters.get("id") ?? "" }
}
