// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

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
