// SPDX-License-Identifier: Apache-2.0
// Measures the Lua host (run by scripts/bench): the cost of calling a Swift function from a
// Lua loop against calling math.abs, and the scheduler's overhead per async call. Prints
// figures and ratios measured in this one run.
import Lua

let clock = ContinuousClock()
let start = clock.now
let lua = try LuaState()
try lua.register(LuaFunction("identity") { call in .one(.integer(try call.integer(1))) })
try lua.register(LuaFunction("noop") { _ in .async { [] } })
try lua.register(
    LuaFunction("now") { _ in
        let elapsed = (clock.now - start).components
        return .one(.number(Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18))
    })
for function in LuaTasks.all { try lua.register(function) }

try lua.evaluate(
    """
    local N = 10000000
    local function loop(f)
      local best = math.huge
      for _ = 1, 3 do
        local t = now()
        for i = 1, N do f(i) end
        best = math.min(best, now() - t)
      end
      return best / N * 1e9
    end
    local empty = loop(function() end)
    local abs = loop(math.abs)
    local swift = loop(identity)
    print(string.format("call cost: Lua function %.1f ns, math.abs %.1f ns, Swift function %.1f ns per call", empty, abs, swift))
    print(string.format("call cost ratio (Swift function / math.abs): %.2fx (goal: at most 2x)", swift / abs))

    local M = 10000
    local best = math.huge
    for _ = 1, 3 do
      local t = now()
      local tasks = {}
      for i = 1, M do tasks[i] = spawn(function() noop() end) end
      wait(tasks)
      best = math.min(best, now() - t)
    end
    print(string.format("scheduler: %d spawned async no-op calls in %.1f ms, %.1f us per call", M, best * 1e3, best / M * 1e6))
    """)
