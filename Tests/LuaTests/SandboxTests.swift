// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

func sandbox(memory: Int = 16 << 20, deadline: Duration = .milliseconds(300)) throws -> LuaState {
    try LuaState(profile: .sandboxed(.init(memoryBytes: memory, deadline: deadline)))
}

@Suite(.timeLimit(.minutes(5))) struct SandboxTests {
    @Test func dangerousLibrariesAreAbsent() throws {
        let lua = try sandbox()
        let r = try lua.evaluate(
            """
            return io, debug, package, require, dofile, loadfile, os.execute, os.getenv, os.exit,
                   type(os.time()), type(os.clock()), type(os.date('%Y'))
            """)
        #expect(r == [nil, nil, nil, nil, nil, nil, nil, nil, nil, "number", "number", "string"])
    }

    @Test func binaryChunksAndStringMetatableAndLibraryWritesAreRefused() throws {
        let lua = try sandbox()
        #expect(try lua.evaluate("return load(string.dump(function() end))") == [nil, "attempt to load a binary chunk (mode is 't')"])
        #expect { try lua.evaluate("return load('return 1', 'x', 'b')") } throws: { _ in true }
        #expect(try lua.evaluate("return load('return 1')()") == [1])
        #expect(try lua.evaluate("return getmetatable('')") == [false])
        #expect { try lua.evaluate("getmetatable('').__index = {}") } throws: { _ in true }
        #expect { try lua.evaluate("string.rep = nil") } throws: {
            ($0 as? LuaError)?.message.contains("attempt to modify read-only table 'string'") == true
        }
        #expect { try lua.evaluate("rawset(string, 'rep', print)") } throws: {
            ($0 as? LuaError)?.message.contains("read-only") == true
        }
        #expect { try lua.evaluate("collectgarbage('stop')") } throws: { _ in true }
        #expect(try lua.evaluate("return ('x'):rep(3), string.format('%d', 7)") == ["xxx", "7"])
    }

    @Test func hugeStringHitsTheMemoryLimitAndTheStateRecovers() throws {
        let lua = try sandbox()
        let error = try #require(throws: LuaError.self) { try lua.evaluate("return string.rep('x', 1e9)") }
        #expect(error.code == .memory)
        #expect(error.message.contains("not enough memory"))
        #expect(try lua.evaluate("return #string.rep('x', 1000)") == [1000])
    }

    @Test func endlessTableFillHitsTheMemoryLimit() throws {
        let lua = try sandbox()
        let error = try #require(throws: LuaError.self) {
            try lua.evaluate("local t = {}; local i = 0; while true do i = i + 1; t[i] = {i} end")
        }
        #expect(error.code == .memory)
        #expect(try lua.evaluate("collectgarbage(); return 1") == [1])
    }

    @Test func endlessLoopInsidePcallIsKilledAtTheDeadline() throws {
        let lua = try sandbox(deadline: .milliseconds(200))
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(throws: LuaError.self) {
            try lua.evaluate("while true do pcall(function() while true do end end) end")
        }
        let elapsed = clock.now - start
        #expect(error.code == .timeout)
        #expect(error.message == "execution time limit exceeded")
        #expect(elapsed < .seconds(2))
        // The same state runs the next chunk normally.
        #expect(try lua.evaluate("local n = 0; for i = 1, 1000 do n = n + i end; return n") == [500_500])
    }

    @Test func killReachesCodeInsideUserCoroutines() throws {
        let lua = try sandbox(deadline: .milliseconds(200))
        let error = try #require(throws: LuaError.self) {
            try lua.evaluate(
                """
                local co = coroutine.wrap(function() while true do end end)
                while true do pcall(co) end
                """)
        }
        #expect(error.code == .timeout)
    }

    /// The trusted profile loads C modules as lua5.4 does (Debian's lua-cjson and lua-lpeg,
    /// installed by scripts/setup); the sandbox has no `package` at all.
    @Test func trustedProfileLoadsCModulesAndTheSandboxDoesNot() throws {
        let lua = try LuaState()
        #expect(
            try lua.evaluate("return type(package.loadlib), #package.searchers, package.cpath:find('lua/5.4/?.so', 1, true) ~= nil")
                == ["function", 4, true])
        #expect(
            try lua.evaluate(#"return require("cjson").encode({a = 1}), require("lpeg").match(require("lpeg").R("09")^1, "123x")"#)
                == [#"{"a":1}"#, 4])
        let sandbox = try LuaState(profile: .sandboxed(.init()))
        #expect(try sandbox.evaluate("return type(package), type(require)") == ["nil", "nil"])
    }
}
