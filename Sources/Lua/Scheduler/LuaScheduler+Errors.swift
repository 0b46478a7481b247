// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// What a failed task or a kill becomes: a ``LuaError`` with its code, message and traceback.
extension LuaScheduler {
    /// Throws when the run was killed (deadline or SIGINT) since it began.
    func checkKilled() throws {
        switch authsh_killed(L) {
        case Int32(AUTHSH_KILL_TIMEOUT):
            throw LuaError(.timeout, "execution time limit exceeded", traceback: lastTraceback)
        case Int32(AUTHSH_KILL_INTERRUPT):
            throw LuaError(.interrupted, "interrupted!", traceback: lastTraceback)
        default: return
        }
    }

    /// Describes the error object at the top of the main stack (left there), raised in `thread`
    /// with `status`. A kill or an allocation failure wins over the object's own message.
    func describeError(status: Int32, thread: OpaquePointer) -> LuaError {
        let value = try? LuaStack.value(at: -1, on: L)
        var message = errorMessage()
        authsh_traceback(L, thread, nil, 0)
        let traceback = LuaStack.text(at: -1, on: L)
        clua_pop(L, 1)
        let code: LuaError.Code
        switch (status, authsh_killed(L)) {
        case (_, Int32(AUTHSH_KILL_TIMEOUT)):
            code = .timeout
            message = "execution time limit exceeded"
        case (_, Int32(AUTHSH_KILL_INTERRUPT)):
            code = .interrupted
            message = "interrupted!"
        case (LUA_ERRMEM, _):
            code = .memory
            let limit = authsh_memory_limit(L)
            message = limit > 0 ? "not enough memory (the limit is \(limit >> 20) MiB)" : "not enough memory"
        default:
            code = .runtime
        }
        return LuaError(code, message, traceback: traceback, value: value)
    }

    /// The text of the error object at the top of the main stack: itself if a string or a
    /// number, else its `__tostring` (trusted states only: a sandboxed run is over, and its
    /// limits with it), else its type.
    private func errorMessage() -> String {
        if let text = LuaStack.text(at: -1, on: L) { return text }
        let typeName = "(error object is a \(String(cString: clua_typename(L, -1))) value)"
        if state.isSandboxed { return typeName }
        let ok = authsh_tostring(L, -1) == LUA_OK  // stack: error, string
        let text = LuaStack.text(at: -1, on: L)
        clua_pop(L, 1)
        return ok ? text ?? "?" : typeName
    }
}
