// SPDX-License-Identifier: Apache-2.0
/// Rate-limit buckets shared by every instance on the database (``StoredRateLimiter``).
extension SQLStore {
    public func takeRate(key: String, now: Int64, interval: Int64, tolerance: Int64) async throws -> (tat: Int64, refused: Bool) {
        let arguments = RateLimitsTable.takeArguments(key: key, now: now, interval: interval, tolerance: tolerance)
        func take(_ r: Engine.Runner) async throws -> (tat: Int64, refused: Bool) {
            guard let row = try await r.first(RateLimitsTable.take, arguments, { (try $0.int64("tat"), try $0.int64("refused") != 0) })
            else { throw StoreError.unavailable("take a rate-limit token") }
            return row
        }
        // On PostgreSQL one statement outside a transaction commits alone: one round trip.
        if Engine.updatesInReads { return try await engine.read("take a rate-limit token") { try await take($0) } }
        return try await engine.write("take a rate-limit token") { try await take($0) }
    }

    public func rateBucket(key: String) async throws -> Int64? {
        try await engine.read("read a rate-limit bucket") { r in try await r.first(RateLimitsTable.select, [.text(key)]) { try $0.int64("tat") } }
    }

    public func deleteFullRateBuckets(at time: Int64) async throws -> Int {
        try await engine.write("delete full rate-limit buckets") { r in try await r.count(RateLimitsTable.deleteFull, [.integer(time)]) }
    }
}
