// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

// Dispatch from C: the trampoline's entry into Swift functions, and how a Swift error
// becomes the Lua value it raises.

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
