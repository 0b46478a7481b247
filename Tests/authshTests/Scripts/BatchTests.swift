// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

@Suite(.binary, .timeLimit(.minutes(5))) struct BatchTests {
    @Test func executesChunksAndPrintsLikeLua() async throws {
        let r = try await Binary.run(["-e", "print(1, 2.0, 'x', math.type(3), 2^53)"])
        #expect(r.status == 0)
        #expect(r.stdout == "1\t2.0\tx\tinteger\t9.007199254741e+15\n")
    }

    @Test func aLuaErrorExitsOneWithPositionAndTraceback() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write("local x = 1\n\nerror('boom')\n", to: dir + "/fail.lua")
        let r = try await Binary.run(["fail.lua"], directory: dir)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("authsh: fail.lua:3: boom\nstack traceback:\n"))
        #expect(r.stderr.contains("fail.lua:3: in main chunk"))
        #expect(r.stdout.isEmpty)
    }

    @Test func badUsageExits64WithUsage() async throws {
        let unknown = try await Binary.run(["--bogus"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unrecognized option '--bogus'"))
        #expect(unknown.stderr.contains("usage: authsh"))
        let missing = try await Binary.run(["-e"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("'-e' needs an argument"))
    }

    @Test func scriptArgumentsShebangAndExitCode() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(
            "#!/usr/bin/env authsh\nprint(arg[0], arg[1], arg[2], arg[-1], select('#', ...), ...)\nos.exit(7)\n",
            to: dir + "/s.lua")
        let r = try await Binary.run(["-e", "x=1", "s.lua", "a", "-b"], directory: dir)
        #expect(r.status == 7)
        #expect(r.stdout == "s.lua\ta\t-b\tx=1\t2\ta\t-b\n")
    }

    @Test func dashLRequiresAModuleIntoAGlobalOfItsName() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write("return {answer = 42}", to: dir + "/my-mod.lua")
        let r = try await Binary.run(["-l", "my-mod", "-e", "print(_G['my-mod'].answer)"], directory: dir)
        #expect(r.status == 0)
        #expect(r.stdout == "42\n")
        let missing = try await Binary.run(["-l", "no_such_module"], directory: dir)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("module 'no_such_module' not found"))
    }

    @Test func standardInputRunsAsAScript() async throws {
        let piped = try await Binary.run([], stdin: "print('piped', arg[0])")
        #expect(piped.status == 0)
        #expect(piped.stdout.hasPrefix("piped\t"))
        let dash = try await Binary.run(["-", "one", "two"], stdin: "print(...)\nerror('late')")
        #expect(dash.status == 1)
        #expect(dash.stdout == "one\ttwo\n")
        #expect(dash.stderr.hasPrefix("authsh: stdin:2: late"))
    }

    @Test func missingScriptIsAClearFailure() async throws {
        let r = try await Binary.run(["no-such-script.lua"])
        #expect(r.status == 1)
        #expect(r.stderr == "authsh: cannot open no-such-script.lua (No such file or directory)\n")
    }

    /// Where /proc is not mounted, Swift's runtime reads no command line: authsh ran as if given
    /// no argument (`-e CODE` was dropped, standard input ran, exit 0). Both programs say so.
    @Test(
        .enabled(if: Self.canHideProc, "unshare --mount needs CAP_SYS_ADMIN (root outside a restricted container)"),
        arguments: ["authsh", "authsh-server"])
    func withoutProcTheProgramSaysWhatIsMissing(_ program: String) async throws {
        let hideProc = #"mount -t tmpfs none /proc && exec "$0" "$@""#
        let r = try await Binary.run(
            [
                "--mount", "--propagation", "private", "sh", "-c", hideProc,
                Binary.productsDirectory.appendingPathComponent(program).path, "-e", "print(1)",
            ],
            stdin: "print('standard input ran')", executable: "/usr/bin/unshare")
        #expect(r.status == 71, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout == "")
        #expect(r.stderr == "\(program): cannot read the command line: /proc is not mounted, and \(program) needs it\n")
    }

    /// Whether this process may make a mount namespace and mount over /proc in it.
    static let canHideProc: Bool = {
        guard
            let r = try? Binary.runBlocking(
                ["--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs none /proc"], stdin: "", environment: [:], directory: nil,
                executable: "/usr/bin/unshare")
        else { return false }
        return r.status == 0
    }()

    @Test func helpTeachesAndVersionNamesLua() async throws {
        let help = try await Binary.run(["--help"])
        #expect(help.status == 0)
        for needle in [
            "authsh FILE.lua", "-e CHUNK", "-i", "--data DIR", "--server URL", "--app ID", "--plugins DIR", "--json", "AUTHSH_SERVER", "Examples:",
        ] {
            #expect(help.stdout.contains(needle), "help lacks \(needle)")
        }
        let version = try await Binary.run(["--version"])
        #expect(version.stdout.hasPrefix("authsh ") && version.stdout.contains("Lua 5.4"))
        // The commit it was built from: this checkout's (the build is of these sources).
        let head = try ChildProcess.run(["/usr/bin/git", "-C", Binary.repository, "rev-parse", "--short=12", "HEAD"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.stdout.contains(", commit \(head)"), "\(version.stdout) (HEAD \(head))")
        let serve = try await Binary.run(["serve", "--version"])
        #expect(
            serve.status == 0 && serve.stdout.hasPrefix("authsh serve \(version.stdout.split(separator: " ")[1]), commit \(head)"), "\(serve.stdout)")
    }

    @Test func asyncHelpersAreInstalledInTheCommand() async throws {
        let r = try await Binary.run([
            "-e",
            """
            local tasks = {}
            for i = 1, 200 do tasks[i] = auth.spawn(function() auth.sleep(0.1); return i end) end
            local all = auth.wait(tasks)
            print(#all, all[1], all[200])
            """,
        ])
        #expect(r.status == 0)
        #expect(r.stdout == "200\t1\t200\n")
    }

    /// A standard Lua script prints the same under authsh as under Debian's lua5.4.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/lua5.4")))
    func standardScriptsBehaveAsUnderLua() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(
            """
            local t = {5, 3, 9, 1}
            table.sort(t, function(a, b) return a > b end)
            io.write(table.concat(t, ","), "\\n")
            print(string.format("%5.2f|%q|%x", math.pi, "a\\nb", 255), #arg, ...)
            local co = coroutine.wrap(function(a) local b = coroutine.yield(a * 2); print("got", b) end)
            print(co(21)); co("x")
            print((pcall(error, {code = 1})), select(2, pcall(error, "msg", 0)))
            print(utf8.char(233, 8364), utf8.len("été"), ("x"):rep(3, "-"))
            print(string.find("hello world", "o w"), tostring(nil), tostring(1/0), math.tointeger(3.0))
            print(load("return 1 + ...")(41), next({}), rawlen({1, 2}), type(io.stdout))
            print(require("string") == string, package.path ~= nil)
            goto skip
            print("not printed")
            ::skip::
            os.exit(3)
            """, to: dir + "/std.lua")
        let ours = try await Binary.run(["std.lua", "p", "q"], directory: dir)
        let theirs = try await Binary.run(["std.lua", "p", "q"], directory: dir, executable: "/usr/bin/lua5.4")
        #expect(ours.status == 3)
        #expect(ours.status == theirs.status)
        #expect(ours.stdout == theirs.stdout)
    }

    /// The main chunk is the main thread, outside any coroutine, as under lua5.4, though the
    /// host runs it in one: `running`, `isyieldable`, `status`, `resume` of it, and `yield`
    /// from it (a catchable error, in `pcall` or a `load`ed chunk; uncaught, it ends the script
    /// as lua5.4 ends it). Coroutines inside behave as ever.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/lua5.4")))
    func theMainChunkIsTheMainThread() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(
            """
            local main, ismain = coroutine.running()
            print(type(main), ismain, coroutine.isyieldable(), coroutine.isyieldable(main), coroutine.status(main))
            print(pcall(coroutine.yield, 1))
            print(pcall(load("return coroutine.yield(2)")))
            print(coroutine.resume(main))
            local co = coroutine.create(function(a)
              local b = coroutine.yield(a + 1)
              print("inside", coroutine.isyieldable(), select(2, coroutine.running()), coroutine.status(main))
              return b * 2
            end)
            print(coroutine.resume(co, 1))
            print(coroutine.resume(co, 5))
            print(coroutine.status(co), coroutine.wrap(function() return coroutine.status((coroutine.running())) end)())
            coroutine.yield("uncaught")
            print("not reached")
            """, to: dir + "/main.lua")
        let ours = try await Binary.run(["main.lua"], directory: dir)
        let theirs = try await Binary.run(["main.lua"], directory: dir, executable: "/usr/bin/lua5.4")
        #expect(ours.status == 1 && theirs.status == 1)
        #expect(ours.stdout == theirs.stdout, "\(ours.stdout)\nagainst\n\(theirs.stdout)")
        #expect(ours.stderr.contains("attempt to yield from outside a coroutine"))
    }
}
