// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

@Suite(.timeLimit(.minutes(5))) struct ValueTests {
    @Test func scalarsRoundTripAndKeepIntegerAndFloatApart() throws {
        let lua = try LuaState()
        try lua.setGlobal("i", .integer(Int64.max))
        try lua.setGlobal("f", .number(2.0))
        try lua.setGlobal("s", .string(LuaString(bytes: [0xff, 0x00, 0x41])))
        let r = try lua.evaluate("return math.type(i), math.type(f), i, f, #s, s")
        #expect(r[0] == "integer")
        #expect(r[1] == "float")
        #expect(r[2] == .integer(Int64.max))
        #expect(r[3] == .number(2.0))
        #expect(r[4] == 3)
        // Non-UTF-8 bytes survive; they are not text.
        #expect(r[5] == .string(LuaString(bytes: [0xff, 0x00, 0x41])))
        #expect(r[5].stringValue == nil)
    }

    @Test func integerOverflowWrapsInLuaAndConversionIsExplicitInSwift() throws {
        let lua = try LuaState()
        let r = try lua.evaluate("return math.maxinteger + 1, 2^63, 0/0")
        #expect(r[0] == .integer(Int64.min))  // Lua integer arithmetic wraps
        #expect(r[1] == .number(9.223372036854775808e18))
        #expect(r[1].integerValue == nil)  // not representable: no silent clamp
        #expect(r[2].doubleValue?.isNaN == true)
        #expect(LuaValue(exactly: UInt64.max) == nil)
        #expect(LuaValue(exactly: UInt64(5)) == .integer(5))
    }

    @Test func tablesBecomeArraysAndFields() throws {
        let lua = try LuaState()
        let r = try lua.evaluate("return {10, 20, 30, name = 'x', [5] = 'gap', [2.0 + 2] = 'four'}")
        let t = try #require(r[0].tableValue)
        #expect(t.array == [10, 20, 30, "four", "gap"])
        #expect(t["name"] == "x")
        #expect(t.fields.count == 1)
    }

    @Test func swiftTablesPushAndNaNKeysAreRefused() throws {
        let lua = try LuaState()
        try lua.setGlobal("t", ["a": 1, "b": [1, 2, [true, nil]]])
        #expect(try lua.evaluate("return t.a, #t.b, t.b[3][1]") == [1, 3, true])
        var bad = LuaTable()
        bad.fields[.number(.nan)] = 1
        #expect(throws: LuaError.self) { try lua.setGlobal("bad", .table(bad)) }
        #expect(try lua.evaluate("return bad") == [nil])
        #expect(try lua.evaluate("return 1 + 1") == [2])  // the stack was left clean
    }

    @Test func cyclesAndFunctionsAreConversionErrorsThatSayWhere() throws {
        let lua = try LuaState()
        let cyclic = try lua.run(lua.load("local t = {}; t.self = t; return t", name: "=t"))
        #expect { try cyclic.values() } throws: { ($0 as? LuaError)?.message == "table contains a cycle (at self)" }
        let withFunction = try lua.run(lua.load("return {cb = {print}}", name: "=t"))
        #expect { try withFunction.values() } throws: {
            ($0 as? LuaError)?.message == "cannot convert a function value (at cb[1]) to a Swift value"
        }
    }
}
