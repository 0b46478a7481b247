// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc
import Lua

/// One trusted Lua state with authsh's libraries, and how its errors are reported.
final class Session {
    let lua: LuaState
    let dataDirectory: String

    init(dataDirectory: String, libraries: [any LuaLibrary], ignoringEnvironment: Bool = false) throws {
        lua = try LuaState(profile: .trusted, ignoringEnvironment: ignoringEnvironment)
        self.dataDirectory = dataDirectory
        for library in libraries { try library.install(into: lua) }
        _ = authsh_install_sigint_once
    }

    /// Sets the global `arg` as lua does: the script at 0, what precedes it negative.
    func setArguments(_ argv: [String], scriptIndex: Int) throws {
        var table = LuaTable()
        for (i, argument) in argv.enumerated() {
            table[.integer(Int64(i - scriptIndex))] = .string(LuaString(argument))
        }
        try lua.setGlobal("arg", .table(table))
    }

    /// Loads and runs a chunk, reporting any error on stderr. Returns false on error.
    @discardableResult
    func execute(_ source: [UInt8], name: String, arguments: [String] = []) -> Bool {
        do {
            _ = try run(source, name: name, arguments: arguments.map { .string(LuaString($0)) })
            return true
        } catch let error as LuaError {
            report(error)
            return false
        } catch {
            Output.error("authsh: \(error)")
            return false
        }
    }

    /// Loads and runs a chunk; Ctrl-C interrupts it.
    func run(_ source: [UInt8], name: String, arguments: [LuaValue] = []) throws -> LuaResults {
        let chunk = try lua.load(source, name: name)
        return try interruptible { try lua.run(chunk, arguments: arguments) }
    }

    /// Runs `body` with SIGINT turned into an "interrupted!" error in the running Lua code.
    func interruptible<T>(_ body: () throws -> T) rethrows -> T {
        lua.interruptOnSIGINT(true)
        defer { lua.interruptOnSIGINT(false) }
        return try body()
    }

    /// `--json`: `print` writes tables as JSON (relaxed EJSON), other values as `tostring`.
    func printTablesAsJSON() throws {
        let chunk = try lua.load(
            #"""
            local encode, tostring, type, select, concat, write = auth.json.encode, tostring, type, select, table.concat, io.write
            print = function(...)
              local parts = {}
              for i = 1, select("#", ...) do
                local v = select(i, ...)
                parts[i] = type(v) == "table" and encode(v) or tostring(v)
              end
              write(concat(parts, "\t"), "\n")
            end
            """#, name: "=(--json)")
        _ = try lua.run(chunk)
    }

    /// `-l NAME`: `_G[NAME] = require(NAME)`, as lua 5.4.4 does.
    func require(_ module: String) -> Bool {
        let name = LuaFormatter.quote(Array(module.utf8))
        return execute(Array("_G[\(name)] = require(\(name))".utf8), name: "=(command line)")
    }

    /// `authsh: message` and the traceback, as lua prints them; `line` in place of the
    /// message when given (the REPL's line for an auth error).
    func report(_ error: LuaError, line: String? = nil) {
        var text = "authsh: " + (line ?? error.message)
        if let traceback = error.traceback, !traceback.isEmpty { text += "\n" + traceback }
        Output.error(text)
    }
}

/// Installs the SIGINT handler once per process.
private let authsh_install_sigint_once: Bool = {
    LuaState.installInterruptHandler()
    return true
}()
