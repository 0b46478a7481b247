// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Failed-password back-off, counted in the store: every instance on one database counts the
/// same failures, so guesses spread over instances are slowed as if they hit one.
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
/// Failures are forgotten an hour after the last one. The store keeps digests of what it
/// counts, never an address or an email.
struct LoginBackoff: Sendable {
    static let freeFailures = 5
    static let accountFailures = 20
    static let maximumWait: Int64 = 900
    static let memory: Int64 = 3600

    let store: any BackoffStore

    /// Where an address stands with an account.
    struct Standing {
        /// Seconds it must wait before trying, or nil.
        var wait: Int?
        /// Whether it failed on the account within the hour (a success then clears that).
        var failed: Bool
    }

    private static func key(_ parts: String...) -> String {
        Hex.encode(Secrets.digest(parts.joined(separator: "\u{0}")))
    }

    private static func pair(_ address: String, _ account: String) -> String { key("pair", address, account) }
    private static func account(_ account: String) -> String { key("account", account) }

    func standing(address: String, account: String, now: Int64) async throws -> Standing {
        guard let pair = try await store.loginFailures(key: Self.pair(address, account)), now - pair.lastFailure < Self.memory
        else { return Standing(wait: nil, failed: false) }
        if pair.waitUntil > now { return Standing(wait: Int(pair.waitUntil - now), failed: true) }
        if let all = try await store.loginFailures(key: Self.account(account)), all.waitUntil > now {
            return Standing(wait: Int(all.waitUntil - now), failed: true)
        }
        return Standing(wait: nil, failed: true)
    }

    func failed(address: String, account: String, now: Int64) async throws {
        try await store.countLoginFailure(key: Self.pair(address, account), at: now, memory: Self.memory) {
            Self.wait(after: $0, free: Self.freeFailures, now: now)
        }
        try await store.countLoginFailure(key: Self.account(account), at: now, memory: Self.memory) {
            Self.wait(after: $0, free: Self.accountFailures, now: now)
        }
    }

    func succeeded(address: String, account: String) async throws {
        try await store.deleteLoginFailures(key: Self.pair(address, account))
    }

    /// Until when a key with `failures` must wait: nil within the free ones, then 2, 4, 8, ...
    /// seconds, at most ``maximumWait``.
    static func wait(after failures: Int, free: Int, now: Int64) -> Int64? {
        guard failures > free else { return nil }
        return now + min(Int64(1) << min(failures - free, 20), maximumWait)
    }
}
