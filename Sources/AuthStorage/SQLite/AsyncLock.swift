// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A lock an async task holds across suspension points, handed to waiters in arrival order.
/// Taking it when it is free does not suspend.
package final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Waits until the lock is this caller's.
    package func lock() async {
        let free = state.withLock { s -> Bool in
            guard !s.held else { return false }
            s.held = true
            return true
        }
        if free { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { s -> Bool in
                if !s.held {
                    s.held = true
                    return true
                }
                s.waiters.append(waiter)
                return false
            }
            if acquired { waiter.resume() }
        }
    }

    /// Whether a task waits for the lock (none stops waiting once it has begun).
    package var hasWaiters: Bool { waiterCount > 0 }

    /// How many tasks wait for the lock.
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Gives the lock to the next waiter, or frees it.
    package func unlock() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.waiters.isEmpty else {
                s.held = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () async throws -> T) async throws -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }
}
