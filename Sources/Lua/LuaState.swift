// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// One Lua state, confined to the thread that uses it (it is not Sendable).
///
/// Two profiles: `.trusted` (the REPL and batch scripts: the standard libraries, without C
/// module loading) and `.sandboxed` (server plugins: no io/os/debug/package, text-only load,
/// a memory cap, a deadline per run, read-only libraries).
///
/// Code runs through `run`, which executes a function as a coroutine under the scheduler, so
/// async Swift functions (`LuaReturn.async`) read as sequential Lua.
public final class LuaState {
    /// Which libraries and limits a state has.
    public enum Profile: Sendable {
        case trusted
        case sandboxed(SandboxLimits)
    }

    /// Limits of a sandboxed state.
    public struct SandboxLimits: Sendable {
        /// Bytes the state may allocate (default 32 MiB).
        public var memoryBytes: Int
        /// Wall-clock time one run may take (default 1 s).
        public var deadline: Duration
        public init(memoryBytes: Int = 32 << 20, deadline: Duration = .seconds(1)) {
            self.memoryBytes = memoryBytes
            self.deadline = deadline
        }
    }

    public let profile: Profile
    /// The main thread. Use it only from the thread that owns this state.
    let L: OpaquePointer
    private var schedulerStorage: LuaScheduler?
    /// The scheduler, created on first use.
    var scheduler: LuaScheduler {
        if let schedulerStorage { return schedulerStorage }
        let created = LuaScheduler(state: self)
        schedulerStorage = created
        return created
    }

    /// Creates a state with the libraries of `profile`. `ignoringEnvironment` (lua's `-E`):
    /// `package.path` and `package.cpath` are the defaults, whatever LUA_PATH and LUA_CPATH say.
    public init(profile: Profile = .trusted, ignoringEnvironment: Bool = false) throws {
        LuaState.installDispatch()
        var limit = 0
        if case .sandboxed(let limits) = profile { limit = limits.memoryBytes }
        guard let L = authsh_newstate(limit) else { throw LuaError(.memory, "cannot create a Lua state") }
        self.L = L
        self.profile = profile
        clua_extraspace(L).pointee = Unmanaged.passUnretained(self).toOpaque()
        if ignoringEnvironment { authsh_ignore_environment(L) }
        if case .sandboxed = profile { authsh_openlibs(L, 1) } else { authsh_openlibs(L, 0) }
    }

    deinit {
        schedulerStorage?.cancelAll()
        authsh_close(L)
    }

    /// The LuaState that owns `L` (any of its coroutines).
    static func from(_ L: OpaquePointer) -> LuaState {
        Unmanaged<LuaState>.fromOpaque(clua_extraspace(L).pointee!).takeUnretainedValue()
    }

    var isSandboxed: Bool { if case .sandboxed = profile { true } else { false } }

    /// Bytes the state has allocated.
    public var memoryUsed: Int { authsh_memory_used(L) }

    // MARK: Loading

    /// Compiles `source` into a function. `name` is the chunk name: `@file.lua` for files,
    /// `=stdin`, `=(command line)`. Sandboxed states refuse binary chunks.
    public func load(_ source: [UInt8], name: String) throws -> LuaReference {
        let mode = isSandboxed ? "t" : "bt"
        let status = source.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                clua_loadbufferx(L, $0.baseAddress, $0.count, name, mode)
            }
        }
        guard status == LUA_OK else {
            let message = LuaStack.text(at: -1, on: L) ?? "error loading \(name)"
            clua_pop(L, 1)
            throw LuaError(status == LUA_ERRMEM ? .memory : .syntax, message)
        }
        return LuaReference(popping: L, state: self)
    }

    public func load(_ source: String, name: String) throws -> LuaReference {
        try load(Array(source.utf8), name: name)
    }

    // MARK: Running

    /// Runs `function` as a coroutine under the scheduler until it and every task it spawned
    /// have finished. Sandboxed states stop at their deadline (or `deadline`).
    /// - Returns: the function's results.
    public func run(
        _ function: LuaReference, arguments: [LuaValue] = [], deadline: Duration? = nil
    ) throws -> LuaResults {
        var limit = deadline
        if limit == nil, case .sandboxed(let limits) = profile { limit = limits.deadline }
        return try scheduler.run(function, arguments: arguments, deadline: limit)
    }

    /// Loads and runs `source`, converting its results (a convenience for tests and tools).
    @discardableResult
    public func evaluate(_ source: String, name: String = "=(evaluate)") throws -> [LuaValue] {
        try run(load(source, name: name)).values()
    }

    // MARK: Globals

    /// Sets global `name` (raw: a metatable on _G is not consulted).
    public func setGlobal(_ name: String, _ value: LuaValue) throws {
        clua_pushglobaltable(L)  // stack: G
        LuaStack.pushString(name, on: L)  // stack: G, name
        do { try LuaStack.push(value, on: L) } catch {
            clua_pop(L, 2)
            throw error
        }
        lua_rawset(L, -3)  // stack: G
        clua_pop(L, 1)
    }

    /// Reads global `name` (raw).
    public func global(_ name: String) throws -> LuaValue {
        clua_pushglobaltable(L)
        LuaStack.pushString(name, on: L)
        lua_rawget(L, -2)  // stack: G, value
        defer { clua_pop(L, 2) }
        return try LuaStack.value(at: -1, on: L)
    }

    /// Sets a global function.
    public func register(_ function: LuaFunction) throws {
        try setGlobal(function.name, .function(function))
    }

    /// Sets a global to a reference's value.
    public func setGlobal(_ name: String, _ reference: LuaReference) {
        clua_pushglobaltable(L)
        LuaStack.pushString(name, on: L)
        reference.push(on: L)
        lua_rawset(L, -3)
        clua_pop(L, 1)
    }
}

extension LuaState {
    /// Sets `table.name = value`, creating global `table` when it does not exist (raw access).
    public func setField(_ name: String, of table: String, to value: LuaValue) throws {
        clua_pushglobaltable(L)  // stack: G
        LuaStack.pushString(table, on: L)
        if lua_rawget(L, -2) != LUA_TTABLE {  // stack: G, t?
            clua_pop(L, 1)
            clua_newtable(L)
            LuaStack.pushString(table, on: L)
            lua_pushvalue(L, -2)
            lua_rawset(L, -4)  // G[table] = t
        }
        LuaStack.pushString(name, on: L)
        do { try LuaStack.push(value, on: L) } catch {
            clua_pop(L, 3)
            throw error
        }
        lua_rawset(L, -3)
        clua_pop(L, 2)
    }

    /// The Lua version string (`Lua 5.4`), and the release (`Lua 5.4.4`).
    public static var version: String { String(cString: clua_release()) }
}
