// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// The shared rate-limit buckets (``StoredRateLimiter`` over the store), on every engine: a
/// bucket of 3 a minute takes 3 at once, refuses the fourth with the wait until one refills,
/// refills one every 20 s, and is swept once full; racing takes of one bucket never grant more
/// than it holds.
extension StoreConformanceTests {
    @Test(arguments: Engine.allCases)
    func rateBucketsTakeRefillAndAreSwept(_ engine: Engine) async throws {
        try await Self.withStore(engine) { (store: any AuthStore) async throws in
            let limiter = StoredRateLimiter(store: store)
            for _ in 0..<3 { #expect(try await limiter.take("k", limit: 3, window: 60, now: 1000) == nil) }
            #expect(try await limiter.take("k", limit: 3, window: 60, now: 1000) == 20, "one refills in 20 s")
            #expect(try await limiter.peek("k", limit: 3, window: 60, now: 1010) == 10)
            #expect(try await limiter.take("k", limit: 3, window: 60, now: 1019) == 1)
            #expect(try await limiter.take("k", limit: 3, window: 60, now: 1020) == nil)
            #expect(try await limiter.take("other", limit: 3, window: 60, now: 1020) == nil, "buckets are apart")
            #expect(try await limiter.take("k", limit: 3, window: 60, now: 1020) == 20)
            #expect(try await store.rateBucket(key: StoredRateLimiter.digest("k")) != nil, "kept under its digest")
            #expect(try await store.deleteFullRateBuckets(at: 1070 * StoredRateLimiter.second) == 1, "'other' is full again by then")
            #expect(try await store.deleteFullRateBuckets(at: 1080 * StoredRateLimiter.second) == 1)
            #expect(try await limiter.peek("k", limit: 3, window: 60, now: 1080) == nil)
        }
    }

    @Test(arguments: Engine.allCases)
    func racingTakesOfOneBucketGrantWhatItHolds(_ engine: Engine) async throws {
        try await Self.withStore(engine) { (store: any AuthStore) async throws in
            let limiter = StoredRateLimiter(store: store)
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<24 { group.addTask { try await limiter.take("race", limit: 5, window: 3600, now: 50) == nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(granted == 5)
        }
    }
}
