// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOPosix
import Synchronization

/// Where plugin Lua runs: the plugin runtime's one thread rule, in one place.
///
/// A plugin call is a synchronous Lua run: it holds its thread until it returns, for up to its
/// deadline (1 s by default) when a plugin spins. The rule that follows from this:
///
/// **A call never holds a thread the server needs to answer other requests.** So it runs on
/// the caller's own thread (one of Swift's cooperative threads, one per core) only while fewer
/// than `cores - 1` calls do so, which always leaves a cooperative thread free; every other
/// call runs on this executor's threads (`threads`: twice the cores, at least 4), where calls
/// spinning to their deadline hold up only each other. Never on a NIO event loop. The fast path
/// exists because the hop to another thread (two thread switches) costs more than a trivial
/// plugin call itself (`scripts/bench plugins`).
///
/// The async work a plugin's Lua starts (`context.store`, `context.email`) runs on the Lua
/// host's `LuaTaskExecutor`, whose threads no Lua run ever blocks: a plugin waiting for it
/// cannot wait for another plugin's thread. Each app keeps up to `threads` idle states
/// (``PluginPool``), one per call that may run at once on the executor's threads.
///
/// One executor per process: several servers in one process (the tests, the embedded server)
/// share the cooperative pool, so they share the count too.
final class PluginExecutor: Sendable {
    static let shared = PluginExecutor(cores: System.coreCount)

    /// The executor's own threads; also how many idle states an app keeps.
    let threads: Int
    /// Calls that may still take the caller's thread.
    private let inlineSlots: Atomic<Int>
    private let pool: NIOThreadPool

    private init(cores: Int) {
        threads = max(4, 2 * cores)
        inlineSlots = Atomic(max(0, cores - 1))
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Runs `body` under the rule above.
    /// - Parameter inline: allow the caller's thread (benchmarks turn it off to measure the hop).
    func run<R: Sendable>(inline: Bool = true, _ body: @escaping @Sendable () throws -> R) async throws -> R {
        if inline, inlineSlots.subtract(1, ordering: .acquiring).newValue >= 0 {
            defer { inlineSlots.add(1, ordering: .releasing) }
            return try body()
        }
        if inline { inlineSlots.add(1, ordering: .relaxed) }
        return try await pool.runIfActive(body)
    }
}
