// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

/// Completion walks any value's metatable `__index` table chain (file handles, strings, user
/// tables) and never calls anything.
@Suite(.timeLimit(.minutes(5))) struct CompletionTests {
    @Test func throughMetatablesOfAnyValue() throws {
        let lua = try LuaState()
        try lua.evaluate(
            """
            s = "text"
            base = {greet = function() end, answer = 42}
            obj = setmetatable({}, {__index = setmetatable({wave = function() end}, {__index = base})})
            """)
        #expect(lua.completions(for: "io.stdout:wri") == ["io.stdout:write"])
        #expect(lua.completions(for: "io.stderr:se") == ["io.stderr:seek", "io.stderr:setvbuf"])
        #expect(lua.completions(for: "s:up") == ["s:upper"])
        #expect(lua.completions(for: "obj:") == ["obj:greet", "obj:wave"], "methods of the whole chain")
        #expect(lua.completions(for: "obj.an") == ["obj.answer"])
        #expect(lua.completions(for: #""x"):up"#) == [#""x"):upper"#])
        #expect(lua.completions(for: #"'a\'b'):rep"#) == [#"'a\'b'):rep"#])
        #expect(lua.completions(for: "):up") == [], "a call's result is not known without calling")
        #expect(lua.completions(for: #""x" .. "y"):up"#) == [], "not one literal")
    }

    @Test func nothingIsCalled() throws {
        let lua = try LuaState()
        try lua.evaluate(
            """
            called = false
            lazy = setmetatable({}, {__index = function() called = true; return {} end})
            proxy = setmetatable({}, {__index = setmetatable({}, {__index = function() called = true end})})
            """)
        #expect(lua.completions(for: "lazy.x") == [])
        #expect(lua.completions(for: "lazy:") == [])
        #expect(lua.completions(for: "proxy.a.b") == [])
        #expect(try lua.evaluate("return called") == [false])
    }
}
