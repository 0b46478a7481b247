// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

extension LuaFunction {
    /// `readonly(t, name)`: a read-only proxy of table `t`. Reads and `pairs` pass through;
    /// writes raise "attempt to modify read-only table 'name'"; `getmetatable` cannot reach
    /// `t`, and the sandbox's `rawset` refuses the proxy. For hosts that hand tables to
    /// sandboxed code (the server's plugin `context`).
    public static let readonly = LuaFunction("readonly") { call in
        guard lua_type(call.L, 1) == LUA_TTABLE else { throw call.typeError(1, expected: "table") }
        let name = try call.optionalString(2) ?? "?"
        authsh_pushreadonly(call.L, 1, name)
        return .pushed(1)
    }
}
