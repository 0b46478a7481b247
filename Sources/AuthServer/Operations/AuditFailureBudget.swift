import Synchronization

/// How many failed requests of one client address nobody is logged in for the audit log keeps
/// a minute: beyond it the rest of that minute's are counted in the metrics only. Without it a
/// client sending bad requests, or rate-limited ones, writes a row with each (kept 90 days).
final class AuditFailureBudget: Sendable {
    private struct Window {
        var minute: Int64
        var used: Int
    }

    let perMinute: Int
    private let windows = Mutex<[String: Window]>([:])

    init(perMinute: Int) { self.perMinute = perMinute }

    /// Takes one from `address`'s budget for the minute of `now` (Unix seconds); false when none is left.
    func take(_ address: String, now: Int64) -> Bool {
        let minute = now / 60
        return windows.withLock { windows in
            // Old minutes go when the table grows (one entry per address seen this minute).
            if windows.count > 10_000 { windows = windows.filter { $0.value.minute == minute } }
            var window = windows[address].flatMap { $0.minute == minute ? $0 : nil } ?? Window(minute: minute, used: 0)
            guard window.used < perMinute else { return false }
            window.used += 1
            windows[address] = window
            return true
        }
    }
}
