// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Token buckets by key, in this process: `limit` requests per `window` seconds, refilled
/// continuously. Several server processes each keep their own (the PostgreSQL issue moves
/// the counters that must be shared into the database).
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
        var window: Int
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var takesSincePrune = 0
    }

    private let state = Mutex(State())
    /// Buckets kept before full ones are dropped (a full bucket is the same as none).
    private let pruneAt: Int

    init(pruneAt: Int = 100_000) { self.pruneAt = pruneAt }

    /// Takes one request from `key`'s bucket. Returns nil when allowed, or the seconds until
    /// the next request would be (at least 1).
    func take(_ key: String, limit: Int, window: Int, now: Int64) -> Int? {
        bucket(key, limit: limit, window: window, now: now, taking: true)
    }

    /// What ``take(_:limit:window:now:)`` would answer, taking nothing.
    func peek(_ key: String, limit: Int, window: Int, now: Int64) -> Int? {
        bucket(key, limit: limit, window: window, now: now, taking: false)
    }

    private func bucket(_ key: String, limit: Int, window: Int, now: Int64, taking: Bool) -> Int? {
        guard limit > 0 else { return nil }
        let rate = Double(limit) / Double(window)
        return state.withLock { state in
            var bucket = state.buckets[key] ?? Bucket(tokens: Double(limit), updated: now, window: window)
            bucket.tokens = min(Double(limit), bucket.tokens + Double(max(0, now - bucket.updated)) * rate)
            bucket.updated = now
            state.takesSincePrune += 1
            if state.takesSincePrune >= 1000 && state.buckets.count >= pruneAt {
                state.takesSincePrune = 0
                state.buckets = state.buckets.filter { now - $0.value.updated < $0.value.window }
            }
            guard bucket.tokens >= 1 else {
                state.buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            if taking { bucket.tokens -= 1 }
            state.buckets[key] = bucket
            return nil
        }
    }
}
