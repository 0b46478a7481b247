// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Deadlines for many waits on one clock: a single task wakes every ``tick`` while any wait is
/// pending and ends those whose deadline has passed. A `Task.sleep` per wait would do the same,
/// but a cancelled sleep stays in memory until its deadline (a Swift runtime limitation), and
/// ``PostgresLease`` waits once per database operation: thousands a second, each cancelled
/// within milliseconds, would hold 5 s of sleeping tasks. A cancelled wait here is gone at once.
package final class DeadlineWatch: Sendable {
    package static let shared = DeadlineWatch(tick: .milliseconds(100))

    private struct State {
        var next: UInt64 = 0
        var waiting: [UInt64: (deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// Waits cancelled before they were registered.
        var cancelled: Set<UInt64> = []
        var ticking = false
    }

    private let state = Mutex(State())
    package let tick: Duration

    package init(tick: Duration) { self.tick = tick }

    /// Returns once `deadline` has passed (within a tick), or as soon as the task is cancelled.
    package func wait(until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { s in
            s.next += 1
            return s.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, startTicker) = state.withLock { s -> (Bool, Bool) in
                    if s.cancelled.remove(id) != nil { return (true, false) }
                    s.waiting[id] = (deadline, continuation)
                    let start = !s.ticking
                    s.ticking = true
                    return (false, start)
                }
                if resumeNow { continuation.resume() }
                if startTicker { Task { await self.run() } }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, Never>? in
                if let entry = s.waiting.removeValue(forKey: id) { return entry.continuation }
                s.cancelled.insert(id)
                return nil
            }
            continuation?.resume()
        }
        // A cancellation that came after the wait ended left its mark: clear it.
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    /// Ends the waits whose deadline has passed, a tick at a time, until none is pending.
    private func run() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let (due, more) = state.withLock { s -> ([CheckedContinuation<Void, Never>], Bool) in
                let expired = s.waiting.filter { $0.value.deadline <= now }
                for id in expired.keys { s.waiting[id] = nil }
                if s.waiting.isEmpty { s.ticking = false }
                return (expired.values.map(\.continuation), !s.waiting.isEmpty)
            }
            for continuation in due { continuation.resume() }
            if !more { return }
        }
    }
}
