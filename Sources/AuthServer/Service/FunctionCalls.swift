// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import LuaEJSON

/// `POST {app}/functions/call`: the app's plugin functions, called by its users.
struct FunctionCalls {
    let functions: PluginFunctions
    let abuse: AbuseControls

    /// `POST {app}/functions/call`: the plugin function `name`, for the caller, with at most
    /// ``maxArguments`` `arguments`. realm-web's `mongoClient(service)` names a service
    /// (`mongodb-atlas`): the app has none, and an app function of the same name (`findOne`)
    /// is not what the client asked for, so a `service` is refused.
    func callFunction(_ caller: Caller, name: String, service: String?, arguments: [EJSON], address: String) async throws -> EJSON {
        let app = caller.app
        try await abuse.checkRate(.call, app: app, address: address, account: caller.userId)
        if let service {
            throw ServiceError(.serviceNotFound, "service not found: '\(service)' (this server has no services, only the app's functions)")
        }
        guard arguments.count <= Self.maxArguments else {
            throw ServiceError(
                .invalidParameter, "parameter 'arguments' has \(arguments.count) values: at most \(Self.maxArguments) are allowed")
        }
        guard !PluginFunctions.isRoleFunction(name, of: app.config) else {
            throw ServiceError(.functionNotFound, "function not found: '\(name)'")
        }
        let result = try await functions.callPlugin(name, app: app, arguments: arguments.map(LuaEJSON.lua), userId: caller.userId)
        do {
            return try LuaEJSON.ejson(result)
        } catch {
            throw ServiceError(.functionExecutionError, "function '\(name)' returned a value that cannot be converted: \(error)")
        }
    }

    /// How many `arguments` a client may pass to a plugin function (`functions/call`, and
    /// `reset/call` after the request table).
    static let maxArguments = 100
}
