// SPDX-License-Identifier: Apache-2.0
import CLua

/// The scheduler's primitives as Lua functions: `spawn`, `wait`, `sleep`. The executable
/// installs them (as `auth.spawn`, `auth.wait`, `auth.sleep`); other hosts may too.
public enum LuaTasks {
    /// `spawn(f, ...)`: runs `f(...)` as a new task; returns its handle at once.
    public static let spawn = LuaFunction(
        "spawn", "(f: function, ...: any): task",
        "Runs `f(...)` as a new task and returns its handle at once; `wait` gives its results."
    ) { call in
        guard lua_type(call.L, 1) == LUA_TFUNCTION else { throw call.typeError(1, expected: "function") }
        return .one(.object(try call.state.scheduler.spawnFromLua(call.L)))
    }

    /// `wait(t)`: the results of task t (its error is raised here).
    /// `wait(t1, t2, ...)`: the first result of each. `wait{t1, t2, ...}`: a table of those.
    public static let wait = LuaFunction(
        "wait", "(t: task, ...: task): any",
        "Suspends the calling task until the tasks end. `wait(t)` returns t's results (its error is raised here); "
            + "`wait(t1, t2, ...)` the first result of each; `wait{t1, t2, ...}` a table of those.",
        overloads: ["(tasks: task[]): any[]"]
    ) { call in
        var handles: [LuaTaskHandle] = []
        var style = WaitStyle.single
        if call.count == 1, lua_type(call.L, 1) == LUA_TTABLE {
            style = .table
            let n = lua_rawlen(call.L, 1)
            for i in 0..<Int(n) {
                lua_rawgeti(call.L, 1, lua_Integer(i + 1))
                defer { lua_settop(call.L, -2) }
                guard let handle = try? call.object(-1, as: LuaTaskHandle.self) else {
                    throw LuaArgumentError(index: 1, message: "task expected at index \(i + 1)")
                }
                handles.append(handle)
            }
            if handles.isEmpty { return .one(.table(LuaTable())) }
        } else {
            guard call.count >= 1 else { throw call.typeError(1, expected: "task") }
            for i in 1...call.count { handles.append(try call.object(i, as: LuaTaskHandle.self)) }
            if handles.count > 1 { style = .firstOfEach }
        }
        return try call.state.scheduler.wait(call.L, handles: handles, style: style, name: call.name)
    }

    /// `sleep(seconds)`: suspends the calling task; others keep running.
    public static let sleep = LuaFunction(
        "sleep", "(seconds: number)", "Suspends the calling task for `seconds`; other tasks keep running."
    ) { call in
        let seconds = try call.number(1)
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else {
            throw LuaArgumentError(index: 1, message: "seconds must be a finite number from 0")
        }
        return .async {
            try await Task.sleep(for: .nanoseconds(Int64(seconds * 1e9)))
            return []
        }
    }

    /// All three, for installing into a table.
    public static var all: [LuaFunction] { [spawn, wait, sleep] }
}
