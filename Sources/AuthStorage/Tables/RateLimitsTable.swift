// SPDX-License-Identifier: Apache-2.0
/// `rate_limits`: the rate-limit buckets every instance on a PostgreSQL database shares
/// (``StoredRateLimiter``), by digest of what is counted. A bucket is one number, its
/// theoretical arrival time (`tat`, in microseconds: GCRA, the token bucket as a time): a
/// request at `now` is refused while `tat - now` exceeds the bucket's tolerance, and an allowed
/// one moves `tat` on by the time one request is worth. A bucket whose `tat` has passed is
/// full, the same as none, so the sweeper deletes it.
package enum RateLimitsTable {
    /// Takes one request (arguments: ``takeArguments(key:now:interval:tolerance:)``), in one
    /// statement whose row lock orders racing takes: `refused` says whether this one was.
    package static let take: SQL = """
        INSERT INTO rate_limits (key, tat, refused) VALUES (?, ?, 0)
        ON CONFLICT (key) DO UPDATE SET
            refused = CASE WHEN rate_limits.tat - ? > ? THEN 1 ELSE 0 END,
            tat = CASE WHEN rate_limits.tat - ? > ? THEN rate_limits.tat
                       WHEN rate_limits.tat > ? THEN rate_limits.tat + ? ELSE ? END
        RETURNING tat, refused
        """

    package static func takeArguments(key: String, now: Int64, interval: Int64, tolerance: Int64) -> [SQLValue] {
        [
            .text(key), .integer(now + interval), .integer(now), .integer(tolerance), .integer(now), .integer(tolerance),
            .integer(now), .integer(interval), .integer(now + interval),
        ]
    }

    package static let select: SQL = "SELECT tat FROM rate_limits WHERE key = ?"
    package static let deleteFull: SQL = "DELETE FROM rate_limits WHERE tat <= ? RETURNING 1"
}
