// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// Moves values between Swift and a Lua stack. Every function here uses raw access only, so
/// no metamethod runs and nothing raises while Swift frames are live (the memory cap is off
/// while host code runs; the trampoline checks it afterwards).
enum LuaStack {
    /// Pushes `value`. Throws, leaving the stack as it was, for a table with a NaN key. [-0, +1]
    static func push(_ value: LuaValue, on L: OpaquePointer) throws {
        guard lua_checkstack(L, 1) != 0 else { throw LuaError(.memory, "no room on the Lua stack") }
        // Scalars cannot fail half-way: nothing to roll back (the common result of a call).
        if pushScalar(value, on: L) { return }
        let top = lua_gettop(L)
        do {
            try pushUnchecked(value, on: L)
        } catch {
            lua_settop(L, top)
            throw error
        }
    }

    /// Pushes `value` if it is nil, a boolean or a number (one slot the caller made sure of);
    /// false, pushing nothing, for any other value. [-0, +(0|1)]
    @inline(__always)
    static func pushScalar(_ value: LuaValue, on L: OpaquePointer) -> Bool {
        switch value {
        case .nil: lua_pushnil(L)
        case .boolean(let b): lua_pushboolean(L, b ? 1 : 0)
        case .integer(let i): lua_pushinteger(L, i)
        case .number(let d): lua_pushnumber(L, d)
        default: return false
        }
        return true
    }

    private static func pushUnchecked(_ value: LuaValue, on L: OpaquePointer) throws {
        switch value {
        case .nil: lua_pushnil(L)
        case .boolean(let b): lua_pushboolean(L, b ? 1 : 0)
        case .integer(let i): lua_pushinteger(L, i)
        case .number(let d): lua_pushnumber(L, d)
        case .string(let s): pushBytes(s.bytes, on: L)
        case .function(let f): pushFunction(f, on: L)
        case .object(let box): pushAnyObject(box.object, on: L)
        case .table(let t):
            // Each level holds the table, a key and a value: make room before going deeper.
            guard lua_checkstack(L, 3) != 0 else { throw LuaError(.memory, "table nested too deeply for the Lua stack") }
            lua_createtable(L, Int32(clamping: t.array.count), Int32(clamping: t.fields.count))
            for (i, element) in t.array.enumerated() {
                try pushUnchecked(element, on: L)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
            for (key, element) in t.fields {
                switch key {
                case .nil: throw LuaError(.conversion, "table index is nil")
                case .number(let d) where d.isNaN: throw LuaError(.conversion, "table index is NaN")
                default: break
                }
                if case .nil = element { continue }
                try pushUnchecked(key, on: L)
                try pushUnchecked(element, on: L)
                lua_rawset(L, -3)
            }
        }
    }

    static func pushBytes(_ bytes: [UInt8], on L: OpaquePointer) {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(buffer.count, 1)) {
                _ = lua_pushlstring(L, $0, buffer.count)
            }
        }
    }

    static func pushString(_ text: String, on L: OpaquePointer) {
        var text = text
        text.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
        }
    }

    /// Pushes a Swift function as a Lua closure over a retained box. [-0, +1]
    static func pushFunction(_ function: LuaFunction, on L: OpaquePointer) {
        LuaState.installDispatch()
        authsh_pushfunction(L, Unmanaged.passRetained(function.box).toOpaque(), function.name)
    }

    private static func pushAnyObject(_ object: some LuaObject, on L: OpaquePointer) {
        LuaState.pushObject(object, on: L)
    }

    /// The bytes of the string at `index` (which must be a string: lua_tolstring would
    /// convert a number in place).
    static func bytes(at index: Int32, on L: OpaquePointer) -> [UInt8] {
        var length = 0
        guard let p = lua_tolstring(L, index, &length) else { return [] }
        return p.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The string at `index` as text, when it is a string and valid UTF-8.
    static func text(at index: Int32, on L: OpaquePointer) -> String? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        return String(validating: bytes(at: index, on: L), as: UTF8.self)
    }

    /// The value at `index` as a `LuaValue`. Tables are read raw; cycles, deep nesting and
    /// values that cannot leave Lua are refused with an error that says where they were.
    static func value(at index: Int32, on L: OpaquePointer) throws -> LuaValue {
        var reading = Reading()
        return try read(lua_absindex(L, index), on: L, &reading)
    }

    static let maxDepth = 100

    /// Where a read is: the tables open (to refuse a cycle) and the keys that led there (for an
    /// error's "at x.y", built only when there is an error). Arrays, not a set and a string:
    /// nesting is shallow, and a read that succeeds never formats a key.
    private struct Reading {
        var tables: [UnsafeRawPointer] = []
        var keys: [LuaValue] = []

        var path: String { keys.map(LuaStack.describe(key:)).joined() }
    }

    private static func read(_ index: Int32, on L: OpaquePointer, _ reading: inout Reading) throws -> LuaValue {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            var isInteger: Int32 = 0
            let i = lua_tointegerx(L, index, &isInteger)
            if lua_isinteger(L, index) != 0, isInteger != 0 { return .integer(i) }
            return .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING: return .string(LuaString(bytes: bytes(at: index, on: L)))
        case LUA_TUSERDATA:
            if let box = authsh_toobject(L, index),
                let object = Unmanaged<AnyObject>.fromOpaque(box).takeUnretainedValue() as? any LuaObject
            {
                return .object(LuaObjectBox(object))
            }
            throw LuaError(.conversion, "cannot convert a userdata value\(where: reading.path) to a Swift value")
        case LUA_TTABLE:
            guard let pointer = lua_topointer(L, index) else { return .table(LuaTable()) }
            guard reading.tables.count < maxDepth else {
                throw LuaError(.conversion, "table nested too deeply\(where: reading.path)")
            }
            guard !reading.tables.contains(pointer) else {
                throw LuaError(.conversion, "table contains a cycle\(where: reading.path)")
            }
            reading.tables.append(pointer)
            defer { reading.tables.removeLast() }
            guard lua_checkstack(L, 3) != 0 else { throw LuaError(.conversion, "stack overflow") }
            var table = LuaTable()
            var pairs: [(LuaValue, LuaValue)] = []
            lua_pushnil(L)  // stack: key
            while lua_next(L, index) != 0 {  // stack: key, value
                let keyIndex = lua_gettop(L) - 1
                let key = try read(keyIndex, on: L, &reading)
                reading.keys.append(key)
                let value = try read(keyIndex + 1, on: L, &reading)
                reading.keys.removeLast()
                pairs.append((key, value))
                clua_pop(L, 1)  // stack: key
            }
            // Sequence first so that `array` takes 1...n, whatever order next() gave.
            pairs.sort { a, b in
                if case .integer(let x) = a.0, case .integer(let y) = b.0 { return x < y }
                if case .integer = a.0 { return true }
                return false
            }
            for (k, v) in pairs { table[k] = v }
            return .table(table)
        default:
            let name = String(cString: clua_typename(L, index))
            throw LuaError(.conversion, "cannot convert a \(name) value\(where: reading.path) to a Swift value")
        }
    }

    fileprivate static func describe(key: LuaValue) -> String {
        switch key {
        case .string(let s): if let t = s.text, t.isLuaIdentifier { ".\(t)" } else { "[\(s.description.debugDescription)]" }
        case .integer(let i): "[\(i)]"
        case .number(let d): "[\(d)]"
        case .boolean(let b): "[\(b)]"
        default: "[?]"
        }
    }
}

extension String.StringInterpolation {
    /// " (at key x.y)" when a path is known, for conversion errors.
    mutating func appendInterpolation(where path: String) {
        if !path.isEmpty {
            appendLiteral(" (at ")
            appendLiteral(path.hasPrefix(".") ? String(path.dropFirst()) : path)
            appendLiteral(")")
        }
    }
}

extension String {
    /// True for a Lua name (`[A-Za-z_][A-Za-z0-9_]*`) that is not a reserved word.
    public var isLuaIdentifier: Bool {
        guard let first = utf8.first, first == UInt8(ascii: "_") || (first | 0x20 >= 97 && first | 0x20 <= 122)
        else { return false }
        for c in utf8 where !(c == UInt8(ascii: "_") || (c | 0x20 >= 97 && c | 0x20 <= 122) || (c >= 48 && c <= 57)) {
            return false
        }
        return !Self.luaReserved.contains(self)
    }

    static let luaReserved: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]
}
