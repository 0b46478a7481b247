// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The failed-password back-off, shared by every instance. One area of ``AuthStore``.
public protocol BackoffStore: Sendable {
    func loginFailures(key: String) async throws -> LoginFailures?
    /// Counts a failure under `key` at `time` (a count whose last failure is `memory` seconds
    /// old or older starts again) and, in the same transaction, sets the time the key must
    /// wait until to `wait(count)` when that is not nil.
    func countLoginFailure(key: String, at time: Int64, memory: Int64, wait: (Int) -> Int64?) async throws
    func deleteLoginFailures(key: String) async throws
    /// Forgets the counts whose last failure is before `time`; returns how many.
    func deleteLoginFailures(lastBefore time: Int64) async throws -> Int
}
