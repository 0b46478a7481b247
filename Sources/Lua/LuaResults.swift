// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

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
