// SPDX-License-Identifier: Apache-2.0
import Lua
import Testing

/// math.random is seeded from the system's random source in both profiles. Lua's default seed
/// is the time in seconds and the state's address, so states made one after another in the same
/// second, where the allocator hands out the freed address again, drew the same numbers: two
/// runs of a script picked the same "unique" address, and a plugin's codes were guessable.
@Suite(.timeLimit(.minutes(5))) struct RandomSeedTests {
    @Test(arguments: [false, true])
    func statesMadeOneAfterAnotherDrawDifferentNumbers(sandboxed: Bool) throws {
        var draws: [LuaValue] = []
        for _ in 1...4 {
            let lua = try LuaState(profile: sandboxed ? .sandboxed(.init()) : .trusted)
            draws.append(try #require(try lua.evaluate("return math.random(0)").first))
        }
        #expect(Set(draws).count == draws.count, "draws: \(draws)")
    }
}
