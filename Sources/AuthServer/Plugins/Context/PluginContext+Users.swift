// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON

extension PluginContext {
    /// `context.users.setCustomData(userId, table)`: the document becomes the `user_data` claim
    /// of that user's next access tokens; nil clears it. Only users of this app.
    var setCustomData: LuaFunction {
        LuaFunction("setCustomData") { [self] call in
            let invocation = try invocation("context.users.setCustomData")
            let userId = try call.string(1)
            var document: EJSONDocument?
            if !call.isNil(2) {
                guard call.isTable(2) else { throw call.typeError(2, expected: "table") }
                let d: EJSONDocument
                do {
                    guard case .document(let converted) = try LuaEJSON.ejson(try call.value(2)) else {
                        throw LuaArgumentError(index: 2, message: "custom data must be a table with named fields, not a list")
                    }
                    d = converted
                } catch let error as LuaEJSON.ConversionError {
                    throw LuaArgumentError(index: 2, message: error.description)
                }
                document = d
                if let problem = CustomDataLimits.problem(d) { throw LuaArgumentError(index: 2, message: problem) }
            }
            let (effects, data) = (effects(invocation), document)
            return .async {
                guard try await effects.setCustomData(data, userId: userId) else {
                    throw LuaError(.runtime, "context.users.setCustomData: no user '\(userId)' in this app")
                }
                return []
            }
        }
    }
}
