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

/// A Lua value kept alive in the registry (a function, a table, anything), usable from Swift
/// on the state's thread.
public final class LuaReference {
    let state: LuaState
    let ref: Int32

    /// Pops the top of `L` into the registry.
    init(popping L: OpaquePointer, state: LuaState) {
        self.state = state
        ref = luaL_ref(L, clua_registryindex)
    }

    /// References the value at `index` of `L`.
    init(state: LuaState, index: Int32, on L: OpaquePointer) {
        self.state = state
        lua_pushvalue(L, index)
        ref = luaL_ref(L, clua_registryindex)
    }

    deinit { luaL_unref(state.L, clua_registryindex, ref) }

    /// Pushes the value. [-0, +1]
    func push(on L: OpaquePointer) { lua_rawgeti(L, clua_registryindex, lua_Integer(ref)) }

    /// The value converted to Swift.
    public func value() throws -> LuaValue {
        push(on: state.L)
        defer { clua_pop(state.L, 1) }
        return try LuaStack.value(at: -1, on: state.L)
    }

    /// The value's type name.
    public var typeName: String {
        push(on: state.L)
        defer { clua_pop(state.L, 1) }
        return String(cString: clua_typename(state.L, -1))
    }
}

/// The results of a run, kept in Lua (so functions and tables keep their identity for the REPL).
public final class LuaResults {
    let packed: LuaReference
    /// How many results there are.
    public let count: Int

    init(packed: LuaReference, count: Int) {
        self.packed = packed
        self.count = count
    }

    /// Result `i` (0-based), pushed on the main stack for `body`. [-0, +0]
    func withValue<R>(_ i: Int, _ body: (OpaquePointer, Int32) throws -> R) rethrows -> R {
        let L = packed.state.L
        packed.push(on: L)
        lua_rawgeti(L, -1, lua_Integer(i + 1))
        defer { clua_pop(L, 2) }
        return try body(L, lua_gettop(L))
    }

    /// Every result converted to Swift.
    public func values() throws -> [LuaValue] {
        try (0..<count).map { i in try withValue(i) { L, index in try LuaStack.value(at: index, on: L) } }
    }

    /// Result `i` as a reference.
    public func reference(_ i: Int) -> LuaReference {
        withValue(i) { L, index in LuaReference(state: packed.state, index: index, on: L) }
    }
}

// MARK: - Dispatch from C

extension LuaState {
    private static let dispatchInstalled: Bool = {
        authsh_set_dispatch(luaDispatch, luaRelease)
        return true
    }()

    static func installDispatch() { _ = dispatchInstalled }
}

private func luaRelease(_ box: UnsafeMutableRawPointer?) {
    guard let box else { return }
    Unmanaged<AnyObject>.fromOpaque(box).release()
}

/// Runs a Swift function for the C trampoline. Returns a result count or an AUTHSH_* status;
/// never raises.
private func luaDispatch(_ L: OpaquePointer?, _ box: UnsafeMutableRawPointer?) -> Int32 {
    guard let L, let box else { return 0 }
    // Borrowed, not retained: the closure being called holds the box (its upvalue) for the
    // whole call. A retain and a release here were a third of a call's cost.
    return Unmanaged<FunctionBox>.fromOpaque(box)._withUnsafeGuaranteedRef { dispatch($0, on: L) }
}

private func dispatch(_ function: FunctionBox, on L: OpaquePointer) -> Int32 {
    let base = lua_gettop(L)
    do {
        switch try function.body(LuaCall(L: L, name: function.name)) {
        case .none:
            return 0
        case .one(let value):
            // A C function has LUA_MINSTACK free slots when called (manual §4.1.1), so a scalar
            // result needs no lua_checkstack (a body that pushed results itself returns .pushed).
            if !LuaStack.pushScalar(value, on: L) { try LuaStack.push(value, on: L) }
            return 1
        case .values(let values):
            guard lua_checkstack(L, Int32(clamping: values.count)) != 0 else {
                throw LuaRaise("too many results")
            }
            for value in values { try LuaStack.push(value, on: L) }
            return Int32(values.count)
        case .pushed(let n):
            return n
        case .async(let operation):
            return try LuaState.from(L).scheduler.suspend(L, name: function.name, operation: operation)
        case .suspend(let operation):
            return try LuaState.from(L).scheduler.suspend(L, name: function.name, waitingFor: operation)
        }
    } catch let error as LuaArgumentError {
        lua_settop(L, base)
        LuaStack.pushString(error.message, on: L)
        authsh_set_aux(L, error.index)
        return Int32(AUTHSH_ARGERROR)
    } catch let error as LuaRaise {
        lua_settop(L, base)
        if (try? LuaStack.push(error.value, on: L)) == nil { LuaStack.pushString("error", on: L) }
        let positioned = error.withPosition && lua_type(L, -1) == LUA_TSTRING
        return Int32(positioned ? AUTHSH_RAISE_WHERE : AUTHSH_RAISE)
    } catch {
        lua_settop(L, base)
        return raise(error, on: L)
    }
}

/// Pushes a Swift error as the Lua value to raise and returns the status for the trampoline.
func raise(_ error: any Error, on L: OpaquePointer) -> Int32 {
    if let convertible = error as? any LuaErrorConvertible,
        (try? LuaStack.push(convertible.luaValue, on: L)) != nil
    {
        return Int32(AUTHSH_RAISE)
    }
    if let lua = error as? LuaError {
        LuaStack.pushString(lua.message, on: L)
        return Int32(AUTHSH_RAISE)
    }
    LuaStack.pushString(String(describing: error), on: L)
    return Int32(AUTHSH_RAISE_WHERE)
}

// MARK: - Libraries

/// Something that registers globals and modules in a state before any chunk runs (the
/// executable installs its libraries this way; the auth bindings plug in the same way).
public protocol LuaLibrary {
    func install(into state: LuaState) throws
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

// MARK: - Interrupts

extension LuaState {
    /// Installs the process's SIGINT handler: while a state has `interruptOnSIGINT(true)`,
    /// Ctrl-C stops its running code with "interrupted!" (a kill pcall cannot swallow).
    public static func installInterruptHandler() { _ = authsh_install_sigint() }

    /// Routes SIGINT to this state's running code (true) or nowhere (false).
    public func interruptOnSIGINT(_ on: Bool) {
        authsh_drain(authsh_interrupt_fd())
        authsh_interrupt_target(on ? L : nil)
    }

    /// An fd that becomes readable when SIGINT arrives (for a line editor's poll loop).
    public static var interruptFD: Int32 { authsh_interrupt_fd() }

    /// Empties the interrupt fd.
    public static func drainInterrupts() { authsh_drain(authsh_interrupt_fd()) }
}
