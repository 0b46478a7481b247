// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Rate limits shared by every instance (``StoredRateLimiter``; times in microseconds). One area of ``AuthStore``.
public protocol RateLimitStore: Sendable {
    /// Takes one request from the bucket `key` (GCRA: refused while its `tat` is more than
    /// `tolerance` ahead of `now`; an allowed request moves it on by `interval`), in one
    /// statement: the bucket's `tat` after, and whether this request was refused.
    func takeRate(key: String, now: Int64, interval: Int64, tolerance: Int64) async throws -> (tat: Int64, refused: Bool)
    /// The bucket's `tat`, or nil when it has none (a full bucket).
    func rateBucket(key: String) async throws -> Int64?
    /// Deletes the buckets full at `time` (their `tat` passed); returns how many.
    func deleteFullRateBuckets(at time: Int64) async throws -> Int
}
