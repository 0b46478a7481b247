// SPDX-License-Identifier: Apache-2.0
import AuthStorage
/// What `authsh audit --follow` has shown of the audit log, and what may still come.
///
/// Events are read by id, but ids are handed out when a transaction writes and become visible
/// when it commits: on PostgreSQL, where several instances write, id 41 can commit after id 42
/// was read. So the follower does not move past an id it has not seen for `grace`: each read
/// starts above ``settled`` (every id up to it shown or given up), shows what it had not shown,
/// and remembers since when each id between is missing. An id missing for longer is taken to
/// be a rolled-back transaction, and given up. (SQLite has one writer and ids in commit order;
/// the same rule costs it nothing.)
struct AuditFollower {
    /// How long a missing id is waited for.
    let grace: Duration
    /// Every id up to this one was shown, filtered out or given up; reads start above it.
    private(set) var settled: Int64
    /// Ids above ``settled`` already taken.
    private var taken: Set<Int64> = []
    /// Ids above ``settled`` not read yet, and since when they are missing.
    private var missing: [Int64: ContinuousClock.Instant] = [:]
    /// Up to this id, every missing one is in ``missing``.
    private var noted: Int64
    /// Missing ids remembered at most: past this, the oldest are given up at once.
    static let missingAtMost: Int64 = 100_000
    /// How far below the newest id at the start a follower begins (what is there then is taken
    /// unshown), so that an id whose transaction was still open at the start is waited for.
    static let startWindow: Int64 = 1000

    /// A follower that shows what comes after `id`.
    init(after id: Int64, grace: Duration) {
        settled = id
        noted = id
        self.grace = grace
    }

    /// Takes events read above ``settled`` (in any order, possibly read before): returns those
    /// not taken before, oldest first, and moves ``settled`` on.
    mutating func take(_ events: [AuditEvent], now: ContinuousClock.Instant) -> [AuditEvent] {
        var new: [AuditEvent] = []
        for event in events where event.id > settled && taken.insert(event.id).inserted {
            missing[event.id] = nil
            new.append(event)
        }
        // `noted` is at least `settled`, and the highest id taken before this call.
        let newest = max(noted, new.lazy.map(\.id).max() ?? noted)
        guard newest > settled else { return [] }
        if newest - settled > Self.missingAtMost { giveUp(through: newest - Self.missingAtMost) }
        var id = noted + 1
        while id < newest {
            if !taken.contains(id) { missing[id] = now }
            id += 1
        }
        noted = max(noted, newest)
        while settled < newest {
            let next = settled + 1
            if taken.remove(next) != nil {
                settled = next
            } else if let since = missing[next], now - since >= grace {
                missing[next] = nil
                settled = next
            } else {
                break
            }
        }
        return new.sorted { $0.id < $1.id }
    }

    private mutating func giveUp(through id: Int64) {
        taken = taken.filter { $0 > id }
        missing = missing.filter { $0.key > id }
        settled = id
        noted = max(noted, id)
    }
}

extension AuditFilter {
    /// Whether `event` is one this filter selects (as the SQL does; `before`, `after` and
    /// `limit` are not about one event).
    func matches(_ event: AuditEvent) -> Bool {
        (appId == nil || event.appId == appId) && (userId == nil || event.userId == userId)
            && (self.event == nil || event.event == self.event) && (since == nil || event.time >= since!)
    }
}
