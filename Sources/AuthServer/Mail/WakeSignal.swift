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

    /// Returns when signalled, or after `timeout`. One waiter at a time.
    func wait(timeout: Duration) async {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            signal()
        }
        defer { timer.cancel() }
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
    }
}
