// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

/// A state with the scheduler's primitives as globals, as the executable installs them.
func tasksState(_ profile: LuaState.Profile = .trusted) throws -> LuaState {
    let lua = try LuaState(profile: profile)
    for function in LuaTasks.all { try lua.register(function) }
    try lua.register(
        LuaFunction("echo") { call in
            let value = try call.value(1)
            return .async { [value] in
                try await Task.sleep(for: .milliseconds(1))
                return [value]
            }
        })
    return lua
}

@Suite(.timeLimit(.minutes(5))) struct SchedulerTests {
    @Test func asyncCallsReadAsSequentialCode() throws {
        let lua = try tasksState()
        #expect(try lua.evaluate("local a = echo(1); local b = echo('two'); return a, b") == [1, "two"])
    }

    @Test func thousandSpawnedSleepsRunConcurrently() throws {
        let lua = try tasksState()
        // Concurrency as ordering, not time: every task has started its sleep before the first
        // one wakes (run one after another, the first would wake with one started).
        let r = try lua.evaluate(
            """
            local started, seenByFirst = 0, nil
            local tasks = {}
            for i = 1, 1000 do
              tasks[i] = spawn(function()
                started = started + 1
                sleep(0.2)
                seenByFirst = seenByFirst or started
                return i
              end)
            end
            local results = wait(tasks)
            local sum = 0
            for _, v in ipairs(results) do sum = sum + v end
            return #results, sum, seenByFirst
            """)
        #expect(r == [1000, 500_500, 1000])
    }

    @Test func waitReturnsResultsAndRaisesTaskErrors() throws {
        let lua = try tasksState()
        #expect(try lua.evaluate("local t = spawn(function(a, b) return a + b, 'x' end, 1, 2); return wait(t)") == [3, "x"])
        #expect(try lua.evaluate("return wait(spawn(echo, 1), spawn(echo, 2))") == [1, 2])
        let r = try lua.evaluate(
            """
            local t = spawn(function() echo(1); error('inner', 0) end)
            return pcall(wait, t)
            """)
        #expect(r == [false, "inner"])
        let done = try lua.evaluate("local t = spawn(function() error('early', 0) end); echo(1); return pcall(wait, t)")
        #expect(done == [false, "early"])
    }

    @Test func anUnwaitedFailingTaskFailsTheRun() throws {
        let lua = try tasksState()
        #expect { try lua.evaluate("spawn(function() echo(1); error('lost', 0) end)") } throws: {
            ($0 as? LuaError)?.message == "lost"
        }
    }

    @Test func hostYieldsPassThroughUserCoroutines() throws {
        let lua = try tasksState()
        let r = try lua.evaluate(
            """
            local gen = coroutine.wrap(function()
                for i = 1, 3 do coroutine.yield(echo(i) * 10) end
            end)
            local co = coroutine.create(function(x) local y = echo(x); coroutine.yield(y); return 'done' end)
            local ok1, v1 = coroutine.resume(co, 'a')
            local ok2, v2 = coroutine.resume(co)
            return gen(), gen(), gen(), ok1, v1, ok2, v2
            """)
        #expect(r == [10, 20, 30, true, "a", true, "done"])
    }

    @Test func userCoroutinesBehaveAsInLua() throws {
        let lua = try tasksState()
        let r = try lua.evaluate(
            """
            local co = coroutine.create(function(a) local b = coroutine.yield(a + 1); error('x' .. b, 0) end)
            local r1 = {coroutine.resume(co, 1)}
            local r2 = {coroutine.resume(co, 'y')}
            local ok, e = pcall(coroutine.wrap(function() error('w') end))
            return r1[1], r1[2], r2[1], r2[2], coroutine.status(co), ok, e
            """, name: "=t")
        #expect(r == [true, 2, false, "xy", "dead", false, "t:4: w"])
    }

    @Test func asyncFromANonYieldableContextIsAClearError() throws {
        let lua = try tasksState()
        #expect { try lua.evaluate("table.sort({3, 1, 2}, function(a, b) return echo(a) < b end)", name: "=s") } throws: {
            ($0 as? LuaError)?.message.contains("attempt to call async function 'echo' from a context that cannot yield") == true
        }
        // The state keeps working.
        #expect(try lua.evaluate("return echo(5)") == [5])
    }

    /// Tasks still waiting when the run fails are cancelled, and their to-be-closed variables
    /// are closed, as closing a coroutine closes them (a failing handler's error is dropped).
    @Test func cancelledTasksRunTheirCloseHandlers() throws {
        let lua = try tasksState()
        #expect(throws: LuaError.self) {
            try lua.evaluate(
                """
                closed = {}
                spawn(function()
                  local a <close> = setmetatable({}, {__close = function() closed[#closed + 1] = "a" end})
                  local b <close> = setmetatable({}, {__close = function() closed[#closed + 1] = "b" end})
                  sleep(30)
                end)
                spawn(function()
                  local c <close> = setmetatable({}, {__close = function() error("a failing handler") end})
                  sleep(30)
                end)
                echo(1)
                error("the main task fails")
                """)
        }
        #expect(try lua.evaluate("return table.concat(closed, ',')") == ["b,a"], "and the next run is not failed by the cancellation")
    }

    @Test func yieldAtTopLevelAndSelfWaitAreErrors() throws {
        let lua = try tasksState()
        #expect { try lua.evaluate("coroutine.yield(1)") } throws: {
            ($0 as? LuaError)?.message == "attempt to yield from outside a coroutine"
        }
        #expect { try lua.evaluate("local t; t = spawn(function() echo(1); wait(t) end); wait(t)", name: "=s") } throws: {
            ($0 as? LuaError)?.message.contains("a task cannot wait for itself") == true
        }
    }

    /// However many values a caller hands a new task or takes back from `wait`, they fit on
    /// the stack (a new Lua thread has room for 20: more were written past its end) or the
    /// call fails with an error; the process never dies.
    @Test func manyArgumentsAndResultsFitTheStack() throws {
        for profile in [LuaState.Profile.trusted, .sandboxed(.init())] {
            let lua = try tasksState(profile)
            let f = try lua.load("return select('#', ...), select(1000, ...)", name: "=f")
            let arguments = (1...1000).map { LuaValue.integer(Int64($0)) }
            #expect(try lua.run(f, arguments: arguments).values() == [1000, 1000])
            #expect(
                try lua.evaluate(
                    """
                    local values = {}
                    for i = 1, 5000 do values[i] = i end
                    local t = spawn(function(...) return select('#', ...), ... end, table.unpack(values))
                    local r = table.pack(wait(t))
                    local tasks = {}
                    for i = 1, 300 do tasks[i] = spawn(function() echo(1); return i end) end
                    local firsts = table.pack(wait(table.unpack(tasks)))
                    return r.n, r[1], r[5001], firsts.n, firsts[300]
                    """) == [5001, 5000, 5000, 300, 300])
        }
    }
}
