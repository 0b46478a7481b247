// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Lua libraries as `lua5.4` loads them: C modules (Debian's lua-cjson and lua-lpeg, installed
/// by scripts/setup) and Lua modules, through LUA_PATH and LUA_CPATH, and LUA_INIT run first,
/// all ignored with `-E`. Each case runs under authsh and under lua5.4 and the two must agree.
@Suite(.binary, .timeLimit(.minutes(5))) struct LuaLibrariesTests {
    /// Runs `arguments` under both; returns authsh's result after checking they agree.
    @discardableResult
    static func agree(
        _ arguments: [String], environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Binary.Result {
        let data = try Binary.temporaryDirectory()
        let ours = try await Binary.run(["--data", data] + arguments, environment: environment)
        let theirs = try await Binary.run(arguments, environment: environment, executable: "/usr/bin/lua5.4")
        #expect(ours.status == theirs.status, "\(arguments): exit \(ours.status) against \(theirs.status)", sourceLocation: sourceLocation)
        #expect(ours.stdout == theirs.stdout, "\(arguments): \(ours.stdout) against \(theirs.stdout)", sourceLocation: sourceLocation)
        return ours
    }

    @Test func cModulesLoadAsUnderLua() async throws {
        let script = try Binary.temporaryDirectory() + "/libraries.lua"
        try Binary.write(
            """
            local cjson = require "cjson"
            local lpeg = require "lpeg"
            print(cjson.encode({1, 2, 3}), cjson.decode('{"a":[true,null]}').a[1])
            local digits = lpeg.C(lpeg.R("09")^1)
            print(lpeg.match(digits * "-" * digits, "2026-11"))
            print(type(package.loadlib), #package.searchers)
            """, to: script)
        let r = try await Self.agree([script])
        #expect(r.stdout == "[1,2,3]\ttrue\n2026\t11\nfunction\t4\n", "\(r.stderr)")
    }

    @Test func pathsAndInitComeFromTheEnvironment() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write("return { hello = function() return 'from LUA_PATH' end }", to: dir + "/greeting.lua")
        try Binary.write("print('init file', ...)", to: dir + "/init.lua")
        let path = dir + "/?.lua"
        try await Self.agree(["-e", "print(require('greeting').hello())"], environment: ["LUA_PATH": path])
        try await Self.agree(["-e", "print(require('greeting').hello())"], environment: ["LUA_PATH_5_4": path, "LUA_PATH": "/nowhere/?.lua"])
        try await Self.agree(["-e", "print(pcall(require, 'cjson'))"], environment: ["LUA_CPATH": "/nowhere/?.so"])
        let initialized = try await Self.agree(["-e", "print(x)"], environment: ["LUA_INIT": "x = 'set by LUA_INIT'"])
        #expect(initialized.stdout == "set by LUA_INIT\n")
        try await Self.agree(["-e", "print(x)"], environment: ["LUA_INIT_5_4": "x = 54", "LUA_INIT": "x = 'plain'"])
        try await Self.agree(["-e", "print(1)"], environment: ["LUA_INIT": "@" + dir + "/init.lua"])
        try await Self.agree(["-e", "print(1)"], environment: ["LUA_INIT": "error('in init')"])
        // -E: none of them.
        let ignored = try await Self.agree(
            ["-E", "-e", "print(x, (pcall(require, 'greeting')), (pcall(require, 'cjson')))"],
            environment: ["LUA_INIT": "x = 1", "LUA_PATH": path, "LUA_CPATH": "/nowhere/?.so"])
        #expect(ignored.stdout == "nil\tfalse\ttrue\n")
    }

    @Test func cModulesInTheREPL() async throws {
        let term = try await Terminal(dataDirectory: try Binary.temporaryDirectory())
        try await term.waitFor("authsh local>")
        try await term.type("cjson = require 'cjson'")
        try await term.type("cjson.encode({ok = true})")
        _ = try await term.waitFor(#""{\"ok\":true}""#)
        try await term.type("lpeg = require 'lpeg'")
        try await term.type("lpeg.match(lpeg.P'a'^1, 'aaab')")
        _ = try await term.waitFor("4")
        #expect(try await term.quit())
    }
}
