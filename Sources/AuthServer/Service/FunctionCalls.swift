// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import LuaEJSON

/// `POST {app}/functions/call`: the app's plugin functions, called by its users.
struct FunctionCalls {
    let functions: PluginFunctions
    let sessions: SessionService
    let abuse: AbuseControls

    /// `POST {app}/functions/call`: a plugin function by name, for the user of the access token.
    /// The token is checked (signature, type, expiry, app) and so is its session (one read:
    /// a deleted or disabled user, or an ended session, calls nothing).
    func callFunction(app: AppRuntime, token: String, body: RequestBody, address: String) async throws -> EJSON {
        let claims = try await sessions.tokens.verify(token, as: .access)
        guard claims.baas_domain_id == app.id else { throw ServiceError(.invalidSession, "invalid session: token of another app") }
        try await abuse.checkRate(.call, app: app, address: address, account: claims.sub)
        try await sessions.checkLive(claims, app: app)
        let name = try body.string("name")
        // realm-web's `mongoClient(service)` names a service (`mongodb-atlas`): the app has none,
        // and an app function of the same name (`findOne`) is not what the client asked for.
        switch body.document["service"] {
        case nil, .null?: break
        case .string(let service)?:
            throw ServiceError(.serviceNotFound, "service not found: '\(service)' (this server has no services, only the app's functions)")
        case let other?: throw ServiceError(.invalidParameter, "parameter 'service' must be a string, got \(other.typeName)")
        }
        guard !PluginFunctions.isRoleFunction(name, of: app.config) else {
            throw ServiceError(.functionNotFound, "function not found: '\(name)'")
        }
        let arguments = try Self.arguments(body)
        let result = try await functions.callPlugin(name, app: app, arguments: arguments.map(LuaEJSON.lua), userId: claims.sub)
        do {
            return try LuaEJSON.ejson(result)
        } catch {
            throw ServiceError(.functionExecutionError, "function '\(name)' returned a value that cannot be converted: \(error)")
        }
    }

    /// How many `arguments` a client may pass to a plugin function (`functions/call`, and
    /// `reset/call` after the request table).
    static let maxArguments = 100

    /// The body's `arguments` array (absent: none), at most ``maxArguments`` of them.
    static func arguments(_ body: RequestBody) throws(ServiceError) -> [EJSON] {
        switch body.document["arguments"] {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= maxArguments else {
                throw ServiceError(.invalidParameter, "parameter 'arguments' has \(items.count) values: at most \(maxArguments) are allowed")
            }
            return items
        case let other?:
            throw ServiceError(.invalidParameter, "parameter 'arguments' must be an array, got \(other.typeName)")
        }
    }
}
