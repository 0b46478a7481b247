// SPDX-License-Identifier: Apache-2.0
import CLua

extension LuaState {
    /// Completions for the word before the cursor: globals, fields after `.`, methods after
    /// `:`. Walks tables, the `__index` table chains of any value's metatable (tables, file
    /// handles and other userdata, strings) and the member lists of Swift classes, with raw
    /// access only; nothing is called.
    /// - Parameter word: for example `app.emailPasswordAuth:reg`, `io.stdout:wri`, `string.fo`
    ///   or `"text"):up` (a string literal in parentheses: the string library's methods).
    /// - Returns: whole words (`string.format`), sorted.
    public func completions(for word: String) -> [String] {
        let separatorIndex = word.lastIndex(where: { $0 == "." || $0 == ":" })
        let partial = separatorIndex.map { String(word[word.index(after: $0)...]) } ?? word
        let head = separatorIndex.map { String(word[..<$0]) } ?? ""
        let methodsOnly = separatorIndex.map { word[$0] == ":" } ?? false
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }

        if methodsOnly && Self.isStringLiteralInParentheses(head) {
            lua_pushstring(L, "")  // a string: the string library's methods
            var names = Set<String>()
            collectNames(at: lua_gettop(L), isClass: false, methodsOnly: true, into: &names)
            return names.filter { $0.hasPrefix(partial) && $0.isLuaIdentifier }.sorted().map { head + ":" + $0 }
        }
        clua_pushglobaltable(L)  // stack: G
        var found = Found.value
        if separatorIndex != nil {
            for component in head.split(separator: ".", omittingEmptySubsequences: false) {
                guard !component.isEmpty, component.allSatisfy({ $0 != ":" }),
                    let next = field(String(component), inClass: found == .classMetatable)
                else { return [] }
                found = next
            }
        }
        var names = Set<String>()
        collectNames(at: lua_gettop(L), isClass: found == .classMetatable, methodsOnly: methodsOnly, into: &names)
        let prefix = separatorIndex.map { String(word[...$0]) } ?? ""
        return names.filter { $0.hasPrefix(partial) && $0.isLuaIdentifier }.sorted().map { prefix + $0 }
    }

    /// What a step of the walk left on top of the stack.
    private enum Found {
        /// The field's value.
        case value
        /// The metatable of a Swift class, standing for a property's value (not read: that would call).
        case classMetatable
    }

    /// Replaces the value on top with its field `name` (raw, through `__index` tables and the
    /// static property types of Swift classes). Nil when there is no such field.
    /// - Parameter inClass: the value on top is a class metatable standing for an object.
    private func field(_ name: String, inClass: Bool) -> Found? {
        let value = lua_gettop(L)
        if inClass { return propertyClass(name, metatableAt: value) }
        switch lua_type(L, value) {
        case LUA_TTABLE:
            var hops = 0
            while hops < 8 {
                LuaStack.pushString(name, on: L)
                if lua_rawget(L, -2) != LUA_TNIL {
                    clua_replace(L, value)
                    lua_settop(L, value)
                    return .value
                }
                clua_pop(L, 1)
                // Follow an __index table.
                guard lua_getmetatable(L, -1) != 0 else { break }
                lua_pushstring(L, "__index")
                guard lua_rawget(L, -2) == LUA_TTABLE else { break }
                clua_remove(L, -2)
                hops += 1
            }
            lua_settop(L, value)
            return nil
        case LUA_TUSERDATA:
            guard lua_getmetatable(L, value) != 0 else { return nil }
            if let found = propertyClass(name, metatableAt: lua_gettop(L), replacing: value) { return found }
            // A userdata that is no Swift class (a file handle, a C module's object): its
            // metatable's `__index` table, walked as a table's.
            lua_settop(L, value)
            guard lua_getmetatable(L, value) != 0 else { return nil }
            lua_pushstring(L, "__index")
            guard lua_rawget(L, -2) == LUA_TTABLE else {
                lua_settop(L, value)
                return nil
            }
            clua_replace(L, value)
            lua_settop(L, value)
            return field(name, inClass: false)
        default:
            return nil
        }
    }

    /// Whether `text` is a string literal closed by a parenthesis, `"x")` or `'x')`: what is
    /// left of `("x"):up` once the line is broken into words at `(`.
    static func isStringLiteralInParentheses(_ text: String) -> Bool {
        let chars = Array(text)
        guard chars.count >= 3, chars.last == ")", let quote = chars.first, quote == "\"" || quote == "'",
            chars[chars.count - 2] == quote
        else { return false }
        var i = 1
        while i < chars.count - 2 {
            if chars[i] == "\\" { i += 2; continue }
            if chars[i] == quote { return false }
            i += 1
        }
        return i == chars.count - 2
    }

    /// A property whose class is known (`__fields`): replaces the value at `replacing` with
    /// that class's metatable.
    private func propertyClass(_ name: String, metatableAt metatable: Int32, replacing value: Int32? = nil) -> Found? {
        let value = value ?? metatable
        lua_pushvalue(L, metatable)
        lua_pushstring(L, "__fields")
        guard lua_rawget(L, -2) == LUA_TTABLE else { return nil }
        LuaStack.pushString(name, on: L)
        guard lua_rawget(L, -2) == LUA_TSTRING, let className = LuaStack.text(at: -1, on: L) else { return nil }
        LuaStack.pushString(className, on: L)
        guard lua_rawget(L, clua_registryindex) == LUA_TTABLE else { return nil }
        clua_replace(L, value)
        lua_settop(L, value)
        return .classMetatable
    }

    /// Adds the completable names of the value at `index`.
    private func collectNames(at index: Int32, isClass: Bool, methodsOnly: Bool, into names: inout Set<String>) {
        if lua_type(L, index) == LUA_TUSERDATA || isClass {
            if isClass { lua_pushvalue(L, index) } else if lua_getmetatable(L, index) == 0 { return }
            lua_pushstring(L, "__members")
            if lua_rawget(L, -2) != LUA_TTABLE && !isClass {
                // No Swift class: the metatable's `__index` table chain (file handles, C modules' objects).
                clua_pop(L, 1)
                lua_pushstring(L, "__index")
                if lua_rawget(L, -2) == LUA_TTABLE { collectNames(at: lua_gettop(L), isClass: false, methodsOnly: methodsOnly, into: &names) }
                clua_pop(L, 2)
                return
            }
            if lua_type(L, -1) == LUA_TTABLE {
                lua_pushnil(L)
                while lua_next(L, -2) != 0 {  // stack: mt, members, key, kind
                    let kind = LuaStack.text(at: -1, on: L)
                    clua_pop(L, 1)
                    if let name = LuaStack.text(at: -1, on: L), !methodsOnly || kind == "method" { names.insert(name) }
                }
            }
            clua_pop(L, 2)
            return
        }
        guard lua_type(L, index) == LUA_TTABLE else {
            // Any other value (a string: s:up): its metatable's `__index` table chain, raw.
            if methodsOnly, lua_getmetatable(L, index) != 0 {
                lua_pushstring(L, "__index")
                if lua_rawget(L, -2) == LUA_TTABLE { collectNames(at: lua_gettop(L), isClass: false, methodsOnly: false, into: &names) }
                clua_pop(L, 2)
            }
            return
        }
        lua_pushvalue(L, index)  // stack: t
        var hops = 0
        while hops < 8 {
            lua_pushnil(L)
            while lua_next(L, -2) != 0 {  // stack: t, key, value
                let isFunction = lua_type(L, -1) == LUA_TFUNCTION
                clua_pop(L, 1)
                if let name = LuaStack.text(at: -1, on: L), !methodsOnly || isFunction { names.insert(name) }
            }
            guard lua_getmetatable(L, -1) != 0 else { break }  // stack: t, mt
            lua_pushstring(L, "__index")
            guard lua_rawget(L, -2) == LUA_TTABLE else { clua_pop(L, 2); break }
            clua_remove(L, -2)
            clua_remove(L, -2)  // stack: index table
            hops += 1
        }
        clua_pop(L, 1)
    }
}
