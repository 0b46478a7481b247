// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging
import Lua
import LuaEJSON
import Synchronization

/// The host functions behind `context` for one plugin state, one file per API
/// (`PluginContext+Store.swift`, `+Email`, `+HTTP`, `+Log`, `+Users`). `slot` holds the
/// invocation while a call runs; outside a call (a file's top-level code) the functions
/// refuse to work. Each function checks its arguments and limits here, then acts through the
/// call's ``PluginEffects``: production's (``LivePluginEffects``), or a unit test's
/// (``PluginProbe``).
final class PluginContext: Sendable {
    let services: PluginServices
    let slot = Mutex<PluginInvocation?>(nil)
    let live: LivePluginEffects

    init(services: PluginServices) {
        self.services = services
        live = LivePluginEffects(services: services)
    }

    /// The running call, or a raise naming `what` when none runs.
    func invocation(_ what: String) throws -> PluginInvocation {
        guard let current = slot.withLock({ $0 }) else {
            throw LuaRaise("\(what) is only available while a plugin function runs, not when its file loads")
        }
        return current
    }

    /// What `invocation` acts on: its test's, or production's.
    func effects(_ invocation: PluginInvocation) -> any PluginEffects { invocation.probe ?? live }

    /// The `host` table the prelude receives.
    var hostTable: LuaValue {
        var t = LuaTable()
        t["readonly"] = .function(.readonly)
        t["log"] = .function(log)
        t["now"] = .function(now)
        t["send"] = .function(send)
        t["get"] = .function(get)
        t["set"] = .function(set)
        t["delete"] = .function(delete)
        t["setCustomData"] = .function(setCustomData)
        t["current"] = .function(current)
        t["http"] = .function(http)
        return .table(t)
    }

    /// `context.values` and `context.user`, converted on first use in each call.
    private var current: LuaFunction {
        LuaFunction("context") { [self] call in
            let key = try call.string(1)
            let invocation = try invocation("context.\(key)")
            if key == "values" { return .one(LuaEJSON.lua(invocation.values)) }
            let (effects, id) = (effects(invocation), invocation.userId)
            return .async { [try await effects.user(id: id)] }
        }
    }

    /// The user as `context.user` shows it (App Services' field names).
    static func lua(_ user: UserRecord) -> LuaValue {
        var t = LuaTable()
        t["id"] = .string(LuaString(user.id))
        t["type"] = .string(LuaString(user.type))
        t["data"] = LuaEJSON.lua(user.data)
        t["custom_data"] = LuaEJSON.lua(user.customData ?? [:])
        t["identities"] = .table(
            LuaTable(
                array: user.identities.map { identity in
                    .table(
                        LuaTable([
                            "id": .string(LuaString(identity.externalId)),
                            "provider_type": .string(LuaString(identity.providerType)),
                            "provider_id": .string(LuaString(identity.providerId)),
                        ]))
                }))
        return .table(t)
    }

    /// `context.now()`: the server clock in Unix seconds (the dev clock moves it).
    private var now: LuaFunction {
        LuaFunction("now") { [self] _ in
            .one(.integer(slot.withLock { $0.map(effects) }?.now ?? services.clock.now))
        }
    }
}
