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
        // A long deadline, so that the order below holds on a loaded machine too (3 s was
        // passed twice in a full run while other tests started SMTP servers and made keys).
        try await TestServer.run(TestServer.withPlugins(dir.path, timeLimit: .seconds(8))) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let clock = ContinuousClock()
            async let spinning: ContinuousClock.Instant = {
                let r = try await c.function("spin", token: token)
                #expect(r.code == "ExecutionTimeLimitExceeded")
                return clock.now
            }()
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await c.function("greet", ["Ada"], token: token).body == "Hello, Ada!")
            #expect(try await c.call(.get, Routes.location("local")).status == 200)
            let served = clock.now
            let spun = try await spinning
            #expect(served < spun, "a plugin call and a route waited for the spinning plugin")
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
