// SPDX-License-Identifier: Apache-2.0
import Lua
import Synchronization

/// The idle plugin states of one app. A call checks a state out, runs on it alone, and checks
/// it back in, so concurrent calls run on different states in parallel (no global lock).
final class PluginPool: Sendable {
    let services: PluginServices
    let limits: LuaState.SandboxLimits
    private let idle = Mutex<[PluginState]>([])
    /// Idle states kept; more are closed on checkin.
    let capacity: Int

    init(services: PluginServices, limits: LuaState.SandboxLimits, capacity: Int) {
        self.services = services
        self.limits = limits
        self.capacity = capacity
    }

    /// Runs `body` on a state that has `set` loaded, making one if none is idle.
    func withState<R>(_ set: PluginSet, _ body: (PluginState) throws -> R) throws -> R {
        let reused: PluginState? = idle.withLock { states in
            while let state = states.popLast() {
                if state.generation == set.generation { return state }
            }
            return nil
        }
        let state = try reused ?? PluginState(set: set, services: services, limits: limits)
        defer {
            if !state.isSpent {
                idle.withLock { states in
                    if states.count < capacity { states.append(state) }
                }
            }
        }
        return try body(state)
    }

    /// Closes every idle state (after a reload they are stale).
    func drain() { idle.withLock { $0.removeAll() } }
}
