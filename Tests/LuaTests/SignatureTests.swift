// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

@Suite(.timeLimit(.minutes(1))) struct SignatureTests {
    @Test func parametersAndResultsWithNestedTypes() throws {
        let s = try #require(LuaSignature("(a: string, opts?: {x: integer, f: fun(y: string): boolean}, ...: any): User?, string"))
        #expect(s.parameters.map(\.name) == ["a", "opts", "..."])
        #expect(s.parameters.map(\.type) == ["string", "{x: integer, f: fun(y: string): boolean}", "any"])
        #expect(s.parameters.map(\.isOptional) == [false, true, false])
        #expect(s.results == ["User?", "string"])
        #expect(s.call("auth.f") == "auth.f(a, opts, ...)")
    }

    @Test func noParametersNoResults() throws {
        let s = try #require(LuaSignature("()"))
        #expect(s.parameters.isEmpty && s.results.isEmpty)
        #expect(try #require(LuaSignature("(m: table<string, string>)")).parameters.map(\.type) == ["table<string, string>"])
    }

    @Test func malformedTypesAreRefused() {
        for text in ["string", "(a)", "(a: string", "(a: string) User", "(: string)", "(a: string):"] {
            #expect(LuaSignature(text) == nil, "\(text)")
        }
    }

    /// A function without a description, a class member without one, and a type naming an
    /// unknown class are each reported.
    @Test func problemsNameWhatIsUndescribed() {
        var globals = LuaModule("", summary: "g")
        globals.add(LuaFunction("bare") { _ in .none })
        globals.add(LuaFunction("typo", "(): Usr", "returns a misspelt class") { _ in .none })
        globals.add(LuaFunction("bad", "(x string)", "cannot be read") { _ in .none })
        let api = LuaAPI(globals: globals, classes: [Counter.self])
        #expect(
            api.problems == [
                "bare: no description", "typo: names the class Usr, which is not described", "bad: cannot read the type (x string)",
                "Counter: no summary", "Counter.plus: no description", "Counter.start: no description",
            ])
    }
}
