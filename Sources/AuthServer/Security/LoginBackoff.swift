import Synchronization

/// Failed-password back-off, in this process.
///
/// - Per address and account: the first ``freeFailures`` wrong passwords cost nothing; after
///   that each one makes that address wait 2, 4, 8, ... seconds, up to ``maximumWait``, before
///   it may try that account again. A correct password clears it.
/// - Per account, whatever the address: past ``accountFailures`` failures within an hour,
///   addresses that already failed on the account wait ``maximumWait`` as well, while an
///   address with no failure there still gets to try. So guessing from many addresses is
///   slowed, and an attacker can never lock the person out: their own login, from an address
///   that has not failed, is always checked.
///
/// Failures are forgotten an hour after the last one.
final class LoginBackoff: Sendable {
    static let freeFailures = 5
    static let accountFailures = 20
    static let maximumWait: Int64 = 900
    static let memory: Int64 = 3600

    private struct Record {
        var failures = 0
        var until: Int64 = 0
        var last: Int64 = 0
    }

    private struct State {
        var pairs: [String: Record] = [:]
        var accounts: [String: Record] = [:]
    }

    private let state = Mutex(State())

    private static func pair(_ address: String, _ account: String) -> String { address + "\u{0}" + account }

    /// Seconds `address` must wait before trying `account`, or nil.
    func wait(address: String, account: String, now: Int64) -> Int? {
        state.withLock { state in
            if let p = state.pairs[Self.pair(address, account)], now - p.last < Self.memory {
                if p.until > now { return Int(p.until - now) }
                if let a = state.accounts[account], a.until > now, p.failures > 0 { return Int(a.until - now) }
            }
            return nil
        }
    }

    func failed(address: String, account: String, now: Int64) {
        state.withLock { state in
            func bump(_ record: inout Record, free: Int) {
                if now - record.last >= Self.memory { record = Record() }
                record.failures += 1
                record.last = now
                if record.failures > free {
                    let exponent = min(record.failures - free, 20)
                    record.until = now + min(Int64(1) << exponent, Self.maximumWait)
                }
            }
            bump(&state.pairs[Self.pair(address, account), default: Record()], free: Self.freeFailures)
            bump(&state.accounts[account, default: Record()], free: Self.accountFailures)
            if state.pairs.count > 100_000 { state.pairs = state.pairs.filter { now - $0.value.last < Self.memory } }
            if state.accounts.count > 100_000 { state.accounts = state.accounts.filter { now - $0.value.last < Self.memory } }
        }
    }

    func succeeded(address: String, account: String) {
        state.withLock { state in _ = state.pairs.removeValue(forKey: Self.pair(address, account)) }
    }
}
