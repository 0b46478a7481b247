// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Rate-limit buckets in the store (`rate_limits`), shared by every instance on a PostgreSQL
/// database: one statement per check, whose row lock orders the instances' takes, so a limit
/// holds for the whole deployment. On PostgreSQL the table is unlogged: a check waits for no
/// flush to disk, and a crash forgets the counts (the buckets are full again). The same buckets as ``RateLimiter``'s, kept as GCRA does (a
/// bucket is the time it is empty until, in microseconds: exact for any limit the config
/// allows, a million a second at most); a key is stored as its digest,
/// never the address or account it names.
struct StoredRateLimiter: RateBuckets {
    let store: any RateLimitStore

    func take(_ key: String, limit: Int, window: Int, now: Int64) async throws -> Int? {
        guard limit > 0 else { return nil }
        let (interval, tolerance) = Self.shape(limit: limit, window: window)
        let (tat, refused) = try await store.takeRate(key: Self.digest(key), now: now * Self.second, interval: interval, tolerance: tolerance)
        return refused ? Self.wait(tat: tat, now: now, tolerance: tolerance) : nil
    }

    func peek(_ key: String, limit: Int, window: Int, now: Int64) async throws -> Int? {
        guard limit > 0, let tat = try await store.rateBucket(key: Self.digest(key)) else { return nil }
        let (_, tolerance) = Self.shape(limit: limit, window: window)
        return tat - now * Self.second > tolerance ? Self.wait(tat: tat, now: now, tolerance: tolerance) : nil
    }

    /// A second, in the buckets' unit.
    static let second: Int64 = 1_000_000

    /// The microseconds one request is worth, and how far ahead of now a bucket may be and
    /// still take one: `limit` requests at once from a full bucket.
    static func shape(limit: Int, window: Int) -> (interval: Int64, tolerance: Int64) {
        let interval = max(1, Int64(window) * second / Int64(limit))
        return (interval, interval * Int64(limit - 1))
    }

    /// Seconds until a bucket at `tat` takes a request again (at least 1).
    static func wait(tat: Int64, now: Int64, tolerance: Int64) -> Int {
        max(1, Int((tat - now * second - tolerance + second - 1) / second))
    }

    static func digest(_ key: String) -> String { Hex.encode(Secrets.digest(key)) }
}
