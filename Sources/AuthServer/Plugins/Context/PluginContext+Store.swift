// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON

extension PluginContext {
    /// The key argument of a `context.store` function, checked.
    private func key(_ call: LuaCall, _ what: String) throws -> String {
        _ = try invocation(what)
        let key = try call.string(1)
        guard !key.isEmpty, key.utf8.count <= PluginLimits.storeKeyBytes else {
            throw LuaArgumentError(index: 1, message: "a key is 1 to \(PluginLimits.storeKeyBytes) bytes")
        }
        return key
    }

    /// `context.store.get(key)`: the stored value, or nil.
    var get: LuaFunction {
        LuaFunction("get") { [self] call in
            let key = try key(call, "context.store.get")
            let effects = effects(try invocation("context.store.get"))
            return .async { [try await effects.value(key).map(LuaEJSON.lua) ?? .nil] }
        }
    }

    /// `context.store.set(key, value)`: any EJSON-able value up to 64 KiB; nil deletes.
    var set: LuaFunction {
        LuaFunction("set") { [self] call in
            let key = try key(call, "context.store.set")
            let invocation = try invocation("context.store.set")
            let effects = effects(invocation)
            if call.isNil(2) {
                return .async {
                    _ = try await effects.setValue(nil, key: key, keyLimit: .max)
                    return []
                }
            }
            let raw = try call.value(2)
            let value: EJSON
            do throws(LuaEJSON.ConversionError) { value = try LuaEJSON.ejson(raw) } catch {
                throw LuaArgumentError(index: 2, message: error.description)
            }
            let size = value.encoded(.canonical).count
            guard size <= PluginLimits.storeValueBytes else {
                throw LuaArgumentError(index: 2, message: "value is \(size) bytes as EJSON, over the limit of \(PluginLimits.storeValueBytes)")
            }
            guard value.depth <= PluginLimits.storeValueDepth else {
                throw LuaArgumentError(index: 2, message: "value nests \(value.depth) levels, over the limit of \(PluginLimits.storeValueDepth)")
            }
            let quota = invocation.quota.storeKeys
            let limit = quota == 0 ? Int.max : quota
            return .async {
                guard try await effects.setValue(value, key: key, keyLimit: limit) else {
                    throw LuaError(
                        .runtime,
                        "context.store.set: the app's store holds \(limit) keys, its limit (pluginLimits.storeKeys): "
                            + "delete some first")
                }
                return []
            }
        }
    }

    /// `context.store.delete(key)`.
    var delete: LuaFunction {
        LuaFunction("delete") { [self] call in
            let key = try key(call, "context.store.delete")
            let effects = effects(try invocation("context.store.delete"))
            return .async {
                _ = try await effects.setValue(nil, key: key, keyLimit: .max)
                return []
            }
        }
    }
}
