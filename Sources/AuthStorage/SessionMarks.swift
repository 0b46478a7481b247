// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The last-use marks this process has seen, per recent session (``AuthStore/refreshSession(id:digest:now:due:)``).
///
/// A refresh whose session was marked after `due` writes no mark, so the store can read it
/// with the plain statement, which on PostgreSQL costs less than the one that may write. It is
/// a hint that only ever skips a write the database would not do either: a mark is recorded
/// once the database has it, and a mark another instance wrote is learnt at the next refresh
/// that reads it. Bounded: at ``capacity`` sessions it starts again empty.
package final class SessionMarks: Sendable {
    package let capacity: Int
    private let marks = Mutex<[String: Int64]>([:])

    package init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// When session `id` was last marked used (or logged in), as far as this process knows.
    package func lastMark(_ id: String) -> Int64? { marks.withLock { $0[id] } }

    /// Session `id` is marked used at `time` in the database.
    package func record(_ id: String, at time: Int64) {
        marks.withLock { marks in
            if marks.count >= capacity && marks[id] == nil { marks.removeAll(keepingCapacity: true) }
            marks[id] = max(marks[id] ?? time, time)
        }
    }
}
