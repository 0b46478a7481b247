// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Synchronization
import Testing

/// The deadline and the memory cap bound every piece of Lua a plugin can cause to run: code
/// Lua runs with hooks off (message handlers, finalizers, `__close` handlers), code the host
/// runs after a run ended (an error's `__tostring`), C library loops that never return to the
/// VM, and the conversion of results. Each call must answer with the limit's error, and the
/// next ordinary call must work. A call that escaped would never answer: `answers(within:)`
/// turns that into a failure instead of a hung suite.
@Suite(.timeLimit(.minutes(5))) struct PluginLimitTests {
    static let escapes = """
        local m = {}
        local function spin() while true do end end
        local function closing(f) return setmetatable({}, { __close = f }) end
        function m.xpcallHandlerOfKill() return xpcall(spin, spin) end
        function m.xpcallHandlerOfError() return xpcall(error, spin) end
        function m.xpcallHandlerInPcall()
          for _ = 1, 100 do pcall(xpcall, spin, spin) end
          return "escaped"
        end
        function m.gc() setmetatable({}, { __gc = spin }) collectgarbage() return "escaped" end
        function m.gcInPcall() pcall(setmetatable, {}, { __gc = spin }) collectgarbage() return "escaped" end
        function m.tostringSpins() error(setmetatable({}, { __tostring = spin })) end
        function m.tostringAllocates()
          error(setmetatable({}, { __tostring = function()
            local t = {} while true do t[#t + 1] = ("x"):rep(4096) .. #t end end }))
        end
        function m.closeAfterError() local x <close> = closing(spin) error("boom") end
        function m.closeAfterKill() local x <close> = closing(spin) spin() end
        function m.coroutineClose()
          local co = coroutine.create(function() local x <close> = closing(spin) coroutine.yield() end)
          coroutine.resume(co)
          return coroutine.close(co)
        end
        function m.coroutineCloseAfterKill()
          local co = coroutine.create(function() local x <close> = closing(spin) spin() end)
          pcall(coroutine.resume, co)
          return coroutine.close(co)
        end
        function m.wrapRaises() coroutine.wrap(function() local x <close> = closing(spin) error("boom") end)() end
        function m.wrapKilled() coroutine.wrap(function() local x <close> = closing(spin) spin() end)() end
        function m.repEmpty() return #string.rep("", 1e15) end
        function m.repEmptySeparator() return #("").rep("", 1e15, "") end
        function m.move() return table.move({}, 1, 1e15, 1, {}) end
        function m.concat() return table.concat(setmetatable({}, { __index = table.concat }), "", 1, 1e15) end
        function m.insert() table.insert(setmetatable({}, { __len = function() return 1e15 end }), 1, true) end
        function m.remove() return table.remove(setmetatable({}, { __len = function() return 1e15 end }), 1) end
        function m.sort()
          table.sort(setmetatable({}, { __len = function() return 2^31 - 2 end, __index = rawlen, __newindex = rawequal }))
        end
        function m.unpack() return select("#", table.unpack({}, 1, 1e15)) end
        function m.bigResult(n) local t = {} for i = 1, n do t["k" .. i] = i end return t end
        return m
        """

    static let friendly = #"return { greet = function(name) return ("Hello, %s!"):format(name) end }"#

    static let timeout = "ExecutionTimeLimitExceeded"
    static let failed = "FunctionExecutionError"

    @Test(arguments: [
        ("xpcallHandlerOfKill", timeout, "execution time limit exceeded"),
        ("xpcallHandlerOfError", timeout, "execution time limit exceeded"),
        ("xpcallHandlerInPcall", timeout, "execution time limit exceeded"),
        ("gc", failed, "__gc metamethods are not allowed"),
        ("gcInPcall", failed, "escaped"),
        ("tostringSpins", failed, "error object is a table value"),
        ("tostringAllocates", failed, "error object is a table value"),
        ("closeAfterError", timeout, "execution time limit exceeded"),
        ("closeAfterKill", timeout, "execution time limit exceeded"),
        ("coroutineClose", timeout, "execution time limit exceeded"),
        ("coroutineCloseAfterKill", timeout, "execution time limit exceeded"),
        ("wrapRaises", timeout, "execution time limit exceeded"),
        ("wrapKilled", timeout, "execution time limit exceeded"),
        ("move", timeout, "execution time limit exceeded"),
        ("concat", timeout, "execution time limit exceeded"),
        ("insert", timeout, "execution time limit exceeded"),
        ("remove", timeout, "execution time limit exceeded"),
        ("sort", timeout, "execution time limit exceeded"),
        ("unpack", failed, "too many results to unpack"),
    ])
    func staysWithinItsLimits(function: String, code: String, message: String) async throws {
        let dir = try PluginDirectory(["escapes.lua": Self.escapes, "friendly.lua": Self.friendly])
        var config = TestServer.withPlugins(dir.path, timeLimit: .milliseconds(300))
        config.pluginMemoryLimit = 16 << 20
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let reply = try await answers(within: .seconds(10)) { try await c.function(function, token: token) }
            guard let r = reply else { return }
            if function == "gcInPcall" {
                // setmetatable refused the finalizer, so nothing was left to run forever.
                #expect(r.status == 200 && r.body == "escaped", "\(function): \(r.status) \(r.body)")
            } else {
                #expect(r.status == 400 && r.code == code, "\(function): \(r.status) \(r.body)")
                #expect(r.message?.contains(message) == true, "\(function): \(r.message ?? "")")
            }
            let next = try await answers(within: .seconds(10)) { try await c.function("greet", ["Ada"], token: token) }
            #expect(next?.body == "Hello, Ada!")
        }
    }

    @Test func repeatingNothingIsEmptyAtOnce() async throws {
        let dir = try PluginDirectory(["escapes.lua": Self.escapes])
        try await TestServer.run(TestServer.withPlugins(dir.path, timeLimit: .milliseconds(300))) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            for name in ["repEmpty", "repEmptySeparator"] {
                let r = try await answers(within: .seconds(10)) { try await c.function(name, token: token) }
                #expect(r?.body == .int32(0), "\(name): \(String(describing: r?.body))")
            }
        }
    }

    /// A result's conversion is linear in its size: 40,000 keys took 2.3 s when each key was a
    /// linear scan. Compared within one run, not against a clock, so that a busy machine does
    /// not fail it: 4 times the keys cost about 4 times the time, where a scan per key costs 16.
    @Test(.timeLimit(.minutes(3))) func aLargeResultConvertsInLinearTime() async throws {
        let dir = try PluginDirectory(["escapes.lua": Self.escapes])
        var config = TestServer.withPlugins(dir.path, timeLimit: .seconds(60))
        config.pluginMemoryLimit = 64 << 20
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            func convert(_ keys: Int32) async throws -> Duration {
                let start = ContinuousClock.now
                let r = try await c.function("bigResult", [.int32(keys)], token: token)
                let elapsed = start.duration(to: .now)
                guard case .document(let doc) = r.body else {
                    Issue.record("no document: \(r.status) \(r.body)")
                    return elapsed
                }
                #expect(doc.count == Int(keys) && doc["k\(keys)"] == .int32(keys))
                return elapsed
            }
            _ = try await convert(1000)  // warm
            // The smaller of two runs each: the least disturbed by the machine.
            let small = min(try await convert(25_000), try await convert(25_000))
            let large = min(try await convert(100_000), try await convert(100_000))
            let ratio = large / small
            print("aLargeResultConvertsInLinearTime: 25,000 keys \(small), 100,000 keys \(large), ratio \(ratio)")
            #expect(ratio < 8, "4 times the keys took \(ratio) times as long (linear: about 4; a scan per key: 16)")
        }
    }

    @Test func loadCompilesAgainstTheCallersEnvironment() async throws {
        let a = """
            return {
              leak = function() load("return ejson")().secret = "from a" return true end,
              globals = function() return load("return _G")() == _G and load("return context")() == context end,
              explicitNil = function() return pcall(load("return ejson", "x", "t", nil)) end,
            }
            """
        let b = #"return { peek = function() return load("return ejson")().secret or "nothing" end }"#
        let dir = try PluginDirectory(["a.lua": a, "b.lua": b])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let leak = try await c.function("leak", token: token)
            #expect(leak.code == Self.failed && leak.message?.contains("read-only table 'ejson'") == true, "\(leak.body)")
            #expect(try await c.function("peek", token: token).body == "nothing")
            #expect(try await c.function("globals", token: token).body == true)
            #expect(try await c.function("explicitNil", token: token).body == false)
        }
    }

    @Test func deeplyNestedValuesReachLuaWithoutOverflowingItsStack() async throws {
        let source = #"""
            return {
              depth = function(text)
                local v, n = ejson.decode(text), 0
                while type(v) == "table" do v, n = v[1], n + 1 end
                return n
              end,
              echo = function(v) return v end,
            }
            """#
        let dir = try PluginDirectory(["deep.lua": source])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let text = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
            #expect(try await c.function("depth", [.string(text)], token: token).body == .int32(64))
            var nested: EJSON = .array([.int32(1)])
            for _ in 1..<60 { nested = .array([nested]) }
            let echoed = try await c.function("echo", [nested], token: token)
            #expect(echoed.body == nested, "\(echoed.status) \(echoed.body)")
        }
    }
}

/// `body`'s result, or nil (with an issue recorded) when it has not answered within `limit`:
/// an escaped plugin never answers, and a hung test would hide which case escaped. `body`
/// runs in a task of its own, so a call that never returns does not hold the test.
func answers<T: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    let answer: T? = try await withCheckedThrowingContinuation { continuation in
        let once = ResumeOnce(continuation)
        Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: limit)
            once.resume(.success(nil))
        }
    }
    if answer == nil { Issue.record("no answer within \(limit)") }
    return answer
}

/// A continuation resumed by whichever of two tasks comes first.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T?, any Error>?>
    init(_ continuation: CheckedContinuation<T?, any Error>) { self.continuation = Mutex(continuation) }
    func resume(_ result: Result<T?, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}
