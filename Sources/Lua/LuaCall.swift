// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// The arguments of one call from Lua into a Swift function, and a way to push results.
///
/// Readers throw `LuaArgumentError`, which Lua reports in its own words:
/// `bad argument #1 to 'login' (table expected, got number)`.
public struct LuaCall {
    /// The running coroutine. Valid only during the call.
    public let L: OpaquePointer
    /// The function's registered name.
    public let name: String

    init(L: OpaquePointer, name: String) {
        self.L = L
        self.name = name
    }

    /// The number of arguments.
    public var count: Int32 { lua_gettop(L) }

    /// Where the Lua code that called this function is, as `chunk:line: ` (`luaL_where`), or
    /// empty when that is not Lua code. For errors raised later, from async work.
    public var position: String {
        luaL_where(L, 1)
        defer { clua_pop(L, 1) }
        return LuaStack.text(at: -1, on: L) ?? ""
    }

    /// The host state this call runs in.
    public var state: LuaState { LuaState.from(L) }

    // MARK: Reading

    /// Lua's type name of argument `i` (`no value` past the end), honouring `__name`.
    public func typeName(_ i: Int32) -> String {
        if i > count { return "no value" }
        if lua_type(L, i) == LUA_TUSERDATA || lua_type(L, i) == LUA_TTABLE,
            lua_getmetatable(L, i) != 0
        {
            defer { clua_pop(L, 1) }
            lua_pushstring(L, "__name")
            if lua_rawget(L, -2) == LUA_TSTRING, let s = lua_tolstring(L, -1, nil) {
                defer { clua_pop(L, 1) }
                return String(cString: s)
            }
            clua_pop(L, 1)
        }
        if lua_type(L, i) == LUA_TLIGHTUSERDATA { return "light userdata" }
        return String(cString: clua_typename(L, i))
    }

    /// The error `bad argument #i to 'name' (<expected> expected, got <type>)`.
    public func typeError(_ i: Int32, expected: String) -> LuaArgumentError {
        LuaArgumentError(index: i, message: "\(expected) expected, got \(typeName(i))")
    }

    /// True when argument `i` is a table.
    public func isTable(_ i: Int32) -> Bool { lua_type(L, i) == LUA_TTABLE }

    /// True when argument `i` is absent or nil.
    public func isNil(_ i: Int32) -> Bool { lua_type(L, i) <= LUA_TNIL }

    /// Argument `i` as any value (see `LuaValue` for what can be converted).
    public func value(_ i: Int32) throws -> LuaValue {
        do {
            return try LuaStack.value(at: i, on: L)
        } catch let error as LuaError {
            throw LuaArgumentError(index: i, message: error.message)
        }
    }

    /// A string argument (numbers are converted, as `luaL_checkstring` does), as UTF-8 text.
    public func string(_ i: Int32) throws -> String {
        let bytes = try self.bytes(i)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw LuaArgumentError(index: i, message: "string is not valid UTF-8")
        }
        return text
    }

    /// A string argument as raw bytes.
    public func bytes(_ i: Int32) throws -> [UInt8] {
        let t = lua_type(L, i)
        guard t == LUA_TSTRING || t == LUA_TNUMBER else { throw typeError(i, expected: "string") }
        if t == LUA_TNUMBER {  // convert a copy: lua_tolstring changes numbers in place
            lua_pushvalue(L, i)
            defer { clua_pop(L, 1) }
            return LuaStack.bytes(at: -1, on: L)
        }
        return LuaStack.bytes(at: i, on: L)
    }

    public func optionalString(_ i: Int32) throws -> String? { isNil(i) ? nil : try string(i) }

    /// An integer argument; a float with an exact integer value is accepted, others are refused
    /// with Lua's wording (`number has no integer representation`).
    public func integer(_ i: Int32) throws -> Int64 {
        var isnum: Int32 = 0
        let v = lua_tointegerx(L, i, &isnum)
        if isnum != 0 { return v }
        if lua_type(L, i) == LUA_TNUMBER {
            throw LuaArgumentError(index: i, message: "number has no integer representation")
        }
        throw typeError(i, expected: "number")
    }

    public func optionalInteger(_ i: Int32) throws -> Int64? { isNil(i) ? nil : try integer(i) }

    /// A number argument (integers converted to Double).
    public func number(_ i: Int32) throws -> Double {
        var isnum: Int32 = 0
        let v = lua_tonumberx(L, i, &isnum)
        if isnum != 0 { return v }
        throw typeError(i, expected: "number")
    }

    /// Lua truthiness of argument `i`.
    public func boolean(_ i: Int32) -> Bool { lua_toboolean(L, i) != 0 }

    /// A table argument, as a snapshot.
    public func table(_ i: Int32) throws -> LuaTable {
        guard lua_type(L, i) == LUA_TTABLE else { throw typeError(i, expected: "table") }
        guard case .table(let t) = try value(i) else { throw typeError(i, expected: "table") }
        return t
    }

    /// A function argument, as a reference that keeps it alive.
    public func function(_ i: Int32) throws -> LuaReference {
        guard lua_type(L, i) == LUA_TFUNCTION else { throw typeError(i, expected: "function") }
        return LuaReference(state: state, index: i, on: L)
    }

    /// Argument `i` as a Swift object of class T (its userdata), or a type error naming T.
    public func object<T: LuaObject>(_ i: Int32, as type: T.Type) throws -> T {
        if let box = authsh_toobject(L, i),
            let object = Unmanaged<AnyObject>.fromOpaque(box).takeUnretainedValue() as? T
        {
            return object
        }
        throw typeError(i, expected: T.luaClass.name)
    }

    // MARK: Pushing

    /// Pushes a value as a result; return `.pushed(n)` afterwards.
    public func push(_ value: LuaValue) throws { try LuaStack.push(value, on: L) }
}
