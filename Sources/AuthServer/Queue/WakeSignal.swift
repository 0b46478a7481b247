// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Wakes one waiting task, or the next to wait: a signal given while nobody waits is kept.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one.
    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Whether a signal is kept for the next wait (for tests).
    var isPending: Bool { state.withLock { $0.pending } }

    /// Returns when signalled, after `timeout`, or when the waiting task is cancelled (a
    /// server shutting down does not wait for the timer). One waiter at a time. A wait ended by
    /// a signal leaves no signal behind from its timer (which once woke the next wait at once,
    /// and the mail sender then read the queue in a loop with no pause).
    func wait(timeout: Duration) async {
        let timer = Task { [self] in
            // Only a timeout signals: a cancelled timer must not.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            signal()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending {
                        s.pending = false
                        return true
                    }
                    s.waiter = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            signal()
        }
        // Settled when it returns: the timer ended, and left a signal only if it fired.
        timer.cancel()
        await timer.value
    }
}
