// SPDX-License-Identifier: Apache-2.0
/// Where rate-limit buckets are counted: in this process (``RateLimiter``, for SQLite, one
/// process), or in the database every instance shares (``StoredRateLimiter``, for
/// PostgreSQL, so that N instances grant each limit once, not N times).
///
/// A bucket holds `limit` requests and refills continuously, `limit` per `window` seconds.
protocol RateBuckets: Sendable {
    /// Takes one request from `key`'s bucket. Returns nil when allowed, or the seconds until
    /// the next request would be (at least 1).
    func take(_ key: String, limit: Int, window: Int, now: Int64) async throws -> Int?
    /// What ``take(_:limit:window:now:)`` would answer, taking nothing.
    func peek(_ key: String, limit: Int, window: Int, now: Int64) async throws -> Int?
}

extension RateLimiter: RateBuckets {}
