// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

@Suite(.timeLimit(.minutes(5))) struct FunctionTests {
    @Test func swiftFunctionsAreCallableAndErrorsUseLuasWording() throws {
        let lua = try LuaState()
        try lua.register(
            LuaFunction("login") { call in
                let t = try call.table(1)
                return .one(t["email"])
            })
        #expect(try lua.evaluate("return login{email = 'a@b'}") == ["a@b"])
        #expect { try lua.evaluate("login(5)", name: "=chunk") } throws: {
            ($0 as? LuaError)?.message == "chunk:1: bad argument #1 to 'login' (table expected, got number)"
        }
        #expect { try lua.evaluate("login()", name: "=chunk") } throws: {
            ($0 as? LuaError)?.message == "chunk:1: bad argument #1 to 'login' (table expected, got no value)"
        }
    }

    @Test func integerArgumentsFollowLuaConversionRules() throws {
        let lua = try LuaState()
        try lua.register(LuaFunction("twice") { call in .one(.integer(try call.integer(1) &* 2)) })
        #expect(try lua.evaluate("return twice(21), twice(2.0), twice('4')") == [42, 4, 8])
        #expect { try lua.evaluate("twice(1.5)", name: "=c") } throws: {
            ($0 as? LuaError)?.message == "c:1: bad argument #1 to 'twice' (number has no integer representation)"
        }
    }

    @Test func raisedSwiftErrorsCarryThePositionAndPcallCatchesThem() throws {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        let lua = try LuaState()
        try lua.register(LuaFunction("fail") { _ in throw Boom() })
        // As with luaL_error: the position is the Lua caller's; pcall (a C function) has none.
        #expect(try lua.evaluate("local ok, e = pcall(fail); return ok, e", name: "=x") == [false, "boom"])
        #expect(try lua.evaluate("return pcall(function() fail() end)", name: "=x") == [false, "x:1: boom"])
        let error = try #require(throws: LuaError.self) { try lua.evaluate("\nfail()", name: "@script.lua") }
        #expect(error.message == "script.lua:2: boom")
        #expect(error.traceback?.contains("stack traceback:") == true)
        #expect(error.traceback?.contains("script.lua:2") == true)
    }

    @Test func errorObjectsKeepTheirFields() throws {
        let lua = try LuaState()
        let error = try #require(throws: LuaError.self) {
            try lua.evaluate("error(setmetatable({code = 'X'}, {__tostring = function() return 'custom' end}))")
        }
        #expect(error.message == "custom")
        #expect(error.value?.tableValue?["code"] == "X")
    }

    @Test func syntaxErrorsAndIncompleteChunks() throws {
        let lua = try LuaState()
        let incomplete = try #require(throws: LuaError.self) { try lua.load("for i = 1, 2 do", name: "=stdin") }
        #expect(incomplete.isIncompleteChunk)
        let broken = try #require(throws: LuaError.self) { try lua.load("x = = 1", name: "=stdin") }
        #expect(broken.code == .syntax)
        #expect(!broken.isIncompleteChunk)
    }
}
