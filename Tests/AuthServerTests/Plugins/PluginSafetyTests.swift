// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// What a plugin cannot do: each attempt fails only its own request, with a clear error, and
/// the server goes on serving.
@Suite(.timeLimit(.minutes(5))) struct PluginSafetyTests {
    static let hostile = """
        local m = {}
        function m.spin() while true do end end
        -- Spins until `release` runs (a store read every million steps: CPU-bound in between).
        function m.spinUntilReleased()
          context.store.set("spinning", true)
          while context.store.get("released") == nil do for _ = 1, 1e6 do end end
          return "released"
        end
        function m.isSpinning() return context.store.get("spinning") == true end
        function m.release() context.store.set("released", true) return true end
        function m.spinInPcall()
          for _ = 1, 100 do pcall(function() while true do end end) end
          return "escaped"
        end
        function m.hugeString() return #string.rep("x", 2^31) end
        function m.bigString() return #string.rep("x", 2^30) end
        function m.endlessTable() local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end end
        function m.pattern() return string.find(string.rep("a", 100000), ".-.-.-.-b") end
        function m.osExecute() return os.execute("true") end
        function m.ioOpen() return io.open("/etc/passwd") end
        function m.require() return require("os") end
        function m.binaryChunk() return assert(load(string.dump(function() return 1 end))) end
        function m.sethook() return debug.sethook() end
        function m.stringMetatable() getmetatable("").__index = {} end
        function m.writeString() string.upper = nil end
        function m.writeContext() context.values = {} end
        function m.writeContextStore() context.store.get = nil end
        function m.rawsetContext() rawset(context, "values", {}) end
        function m.metatableContext() setmetatable(context, {}) end
        function m.cyclic() local t = {} t.self = t return t end
        function m.returnsFunction() return print end
        function m.clobber() string = nil context = nil ejson = nil return true end
        return m
        """

    static let friendly = """
        local seen
        return {
          greet = function(name) return ("Hello, %s!"):format(name) end,
          upper = function(s) return string.upper(s) end,
          put = function(x) seen = x return true end,
          get = function() return seen end,
        }
        """

    @Test(arguments: [
        ("spin", "ExecutionTimeLimitExceeded", "execution time limit exceeded"),
        ("spinInPcall", "ExecutionTimeLimitExceeded", "execution time limit exceeded"),
        ("pattern", "ExecutionTimeLimitExceeded", "execution time limit exceeded"),
        ("hugeString", "FunctionExecutionError", "resulting string too large"),
        ("bigString", "FunctionExecutionError", "not enough memory"),
        ("endlessTable", "FunctionExecutionError", "not enough memory"),
        ("osExecute", "FunctionExecutionError", "field 'execute'"),
        ("ioOpen", "FunctionExecutionError", "global 'io'"),
        ("require", "FunctionExecutionError", "global 'require'"),
        ("binaryChunk", "FunctionExecutionError", "attempt to load a binary chunk"),
        ("sethook", "FunctionExecutionError", "global 'debug'"),
        ("stringMetatable", "FunctionExecutionError", "index a boolean value"),
        ("writeString", "FunctionExecutionError", "read-only table 'string'"),
        ("writeContext", "FunctionExecutionError", "read-only table 'context'"),
        ("writeContextStore", "FunctionExecutionError", "read-only table 'context.store'"),
        ("rawsetContext", "FunctionExecutionError", "read-only table"),
        ("metatableContext", "FunctionExecutionError", "protected metatable"),
        ("cyclic", "FunctionExecutionError", "cycle"),
        ("returnsFunction", "FunctionExecutionError", "cannot convert a function"),
    ])
    func failsOnlyItsOwnRequest(function: String, code: String, message: String) async throws {
        let dir = try PluginDirectory(["hostile.lua": Self.hostile, "friendly.lua": Self.friendly])
        // The memory cases get time enough to reach the cap on a loaded machine (filling 16 MiB
        // can take longer than 300 ms when every core is busy), so it is the cap that stops them.
        let memory = message == "not enough memory"
        var config = TestServer.withPlugins(dir.path, timeLimit: memory ? .seconds(20) : .milliseconds(300))
        config.pluginMemoryLimit = 16 << 20
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let r = try await c.function(function, token: token)
            #expect(r.status == 400 && r.code == code, "\(function): \(r.status) \(r.body)")
            #expect(r.message?.contains(message) == true, "\(function): \(r.message ?? "")")
            // The same states serve the next call.
            #expect(try await c.function("greet", ["Ada"], token: token).body == "Hello, Ada!")
        }
    }

    @Test func otherRequestsAreServedWhileAPluginSpins() async throws {
        let dir = try PluginDirectory(["hostile.lua": Self.hostile, "friendly.lua": Self.friendly])
        // The spinning call ends only when a later request releases it (or at its deadline, a
        // bound for a failing test): it returns "released" only if the requests after it were
        // served while it spun. No guessed time decides the order.
        try await TestServer.run(TestServer.withPlugins(dir.path, timeLimit: .seconds(60))) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            async let spinning = c.function("spinUntilReleased", token: token)
            // Once it spins (a request that waits for the spinning one would never see this).
            while try await c.function("isSpinning", token: token).body != true { await Task.yield() }
            #expect(try await c.function("greet", ["Ada"], token: token).body == "Hello, Ada!")
            #expect(try await c.call(.get, Routes.location("local")).status == 200)
            #expect(try await c.function("release", token: token).body == true)
            let spun = try await spinning
            #expect(spun.body == "released", "a plugin call and a route waited for the spinning plugin: \(spun.body)")
        }
    }

    @Test func globalsOfOneFileDoNotReachAnother() async throws {
        let dir = try PluginDirectory(["hostile.lua": Self.hostile, "friendly.lua": Self.friendly])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            #expect(try await c.function("clobber", token: token).body == true)
            #expect(try await c.function("upper", ["ok"], token: token).body == "OK")
        }
    }

    @Test func aPluginNeverSeesAnotherAppsState() async throws {
        let dir = try PluginDirectory(["friendly.lua": Self.friendly])
        let config = TestServer.configuration(apps: [AppConfiguration(id: "a"), AppConfiguration(id: "b")], plugins: dir.path)
        try await TestServer.run(config) { (c: Client) async throws in
            let a = c.inApp("a"), b = c.inApp("b")
            let ta = try await a.anonymousToken(), tb = try await b.anonymousToken()
            #expect(try await a.function("put", ["secret of a"], token: ta).body == true)
            #expect(try await a.function("get", token: ta).body == "secret of a")
            #expect(try await b.function("get", token: tb).body == .null)
        }
    }
}
