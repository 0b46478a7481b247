// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// How many failed requests of one client address nobody is logged in for the audit log keeps
/// a minute: beyond it the rest of that minute's are counted in the metrics only. Without it a
/// client sending bad requests, or rate-limited ones, writes a row with each (kept 90 days).
final class AuditFailureBudget: Sendable {
    let perMinute: Int
    /// Addresses counted at once; past it, new addresses get nothing until the minute turns.
    let addresses: Int
    private let windows = Mutex<(minute: Int64, used: [String: Int])>((0, [:]))

    init(perMinute: Int, addresses: Int = 10_000) {
        self.perMinute = perMinute
        self.addresses = addresses
    }

    /// Takes one from `address`'s budget for the minute of `now` (Unix seconds); false when none is left.
    func take(_ address: String, now: Int64) -> Bool {
        let minute = now / 60
        return windows.withLock { windows in
            // One minute's counts at a time: a new minute starts them all again.
            if windows.minute != minute { windows = (minute, [:]) }
            let used = windows.used[address] ?? 0
            guard used < perMinute, used > 0 || windows.used.count < addresses else { return false }
            windows.used[address] = used + 1
            return true
        }
    }
}
