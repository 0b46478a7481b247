// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON

/// One sandboxed Lua state with every file of a plugin set loaded, serving one app.
///
/// `@unchecked Sendable`: a `LuaState` must be used by one thread at a time. A PluginState is
/// either idle in its pool's stack (reached only under the pool's mutex) or checked out by
/// exactly one call, which uses it on one thread-pool thread from checkout to checkin and
/// never shares it; nothing else holds a reference.
final class PluginState: @unchecked Sendable {
    let lua: LuaState
    /// The plugin set generation this state loaded.
    let generation: Int
    private let context: PluginContext
    private let loadplugin: LuaReference
    private let invoke: LuaReference
    /// Set after a run that hit the deadline or the memory cap: such a state is closed, not reused.
    private(set) var isSpent = false

    /// A state with the sandbox, the `ejson` library and the plugin host, but no plugin yet.
    init(services: PluginServices, limits: LuaState.SandboxLimits, generation: Int) throws {
        lua = try LuaState(profile: .sandboxed(limits))
        self.generation = generation
        context = PluginContext(services: services)
        let clock = services.clock
        try lua.setGlobal("ejson", .table(EJSONLibrary.table(now: { clock.now })))
        let prelude = try lua.load(PluginPrelude.source, name: "=plugin host")
        let results = try lua.run(prelude, arguments: [context.hostTable])
        loadplugin = results.reference(0)
        invoke = results.reference(1)
    }

    /// A state with `files` loaded (all of them must load: they were checked when the set was made).
    convenience init(set: PluginSet, services: PluginServices, limits: LuaState.SandboxLimits) throws {
        try self.init(services: services, limits: limits, generation: set.generation)
        for file in set.files { _ = try load(file) }
    }

    /// Runs one plugin file; returns the function names it exports.
    func load(_ file: PluginFile) throws -> [String] {
        let results = try lua.run(
            loadplugin,
            arguments: [
                .string(LuaString(bytes: file.source)), .string(LuaString("@" + file.fileName)), .string(LuaString(file.name)),
            ])
        guard case .table(let names)? = try results.values().first else { return [] }
        return names.array.compactMap(\.stringValue)
    }

    /// Calls exported function `name`; returns its first result (nil when it returned nothing).
    func call(_ name: String, arguments: [LuaValue], invocation: PluginInvocation) throws -> LuaValue {
        context.slot.withLock { $0 = invocation }
        defer { context.slot.withLock { $0 = nil } }
        do {
            let results = try lua.run(invoke, arguments: [.string(LuaString(name))] + arguments, deadline: invocation.deadline)
            guard results.count > 0 else { return .nil }
            return try results.values()[0]
        } catch let error as LuaError {
            if error.code == .timeout || error.code == .memory { isSpent = true }
            throw error
        }
    }
}
