import Synchronization

/// Writes audit events with group commit: each caller waits until its events are in the
/// database, but the events of callers that arrive while a write is under way go together in
/// the next transaction. Under load a login then shares its audit transaction with the other
/// logins of that moment, instead of paying a write of its own; alone, it costs one write, as
/// before. Nothing is buffered past the answer: a request answers after its events are stored
/// (or their write failed), so a crash loses none that a client saw answered.
final class AuditWriter: Sendable {
    private struct Waiting {
        var events: [AuditEvent]
        var continuation: CheckedContinuation<(any Error)?, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        /// True while a caller is writing batches (the others only wait).
        var writing = false
    }

    let store: any AuthStore
    private let state = Mutex(State())

    init(store: any AuthStore) {
        self.store = store
    }

    /// How many callers wait for the next transaction (for tests that arrange a batch).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Stores `events`, alone or with others' in one transaction.
    /// - Throws: the store's error for the transaction that held them.
    func write(_ events: [AuditEvent]) async throws {
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            let lead = state.withLock { s in
                s.waiting.append(Waiting(events: events, continuation: continuation))
                if s.writing { return false }
                s.writing = true
                return true
            }
            guard lead else { return }
            // This caller writes until no one waits, its own batch first. It runs in a task of
            // its own so that its caller's continuation (resumed in the first batch) can go on.
            Task { await self.drain() }
        }
        if let failure { throw failure }
    }

    private func drain() async {
        while true {
            let batch: [Waiting] = state.withLock { s in
                let taken = s.waiting
                s.waiting = []
                if taken.isEmpty { s.writing = false }
                return taken
            }
            if batch.isEmpty { return }
            var failure: (any Error)?
            do {
                try await store.insertAuditEvents(batch.flatMap(\.events))
            } catch {
                failure = error
            }
            for waiting in batch { waiting.continuation.resume(returning: failure) }
        }
    }
}
