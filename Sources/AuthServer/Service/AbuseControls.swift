// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Rate limits and failed-login back-off on the unauthenticated routes
/// (docs/server/abuse-controls.md). Over a limit the answer is 429 `TooManyRequests` with `Retry-After`.
struct AbuseControls {
    /// The buckets: in this process on SQLite, in the database on PostgreSQL (``RateBuckets``).
    let limiter: any RateBuckets
    let clock: ServerClock
    /// Dev mode: limits are off unless an app's config turns them on.
    let dev: Bool

    /// True when `app` applies its rate limits: as configured, else on except in dev mode.
    func rateLimited(_ app: AppRuntime) -> Bool {
        app.config.rateLimits.enabled ?? !dev
    }

    /// Counts one request of `route` against the client address and, when there is one, the
    /// account; throws `TooManyRequests` when either is over its limit.
    func checkRate(_ route: RateLimits.Route, app: AppRuntime, address: String, account: String? = nil) async throws {
        guard rateLimited(app), let limit = app.config.rateLimits.limits[route] else { return }
        let now = clock.now
        let prefix = "\(app.id)\u{0}\(route.rawValue)\u{0}"
        if let wait = try await limiter.take(prefix + "a\u{0}" + address, limit: limit.perAddress, window: limit.windowSeconds, now: now) {
            throw Self.tooMany(wait)
        }
        if let account,
            let wait = try await limiter.take(
                prefix + "u\u{0}" + account, limit: limit.perAccount,
                window: limit.windowSeconds, now: now)
        {
            throw Self.tooMany(wait)
        }
    }

    /// The per-account `login` limit of a password check: it counts the account's failed
    /// checks from every address, and stops only addresses that have failed on the account
    /// themselves (``Passwords/check(app:email:password:address:)``). An address that has not
    /// failed always reaches the check, so guessers cannot lock the owner out.
    /// Returns the seconds to wait, or nil; `counting` a failure takes one from the bucket.
    func passwordFailureLimit(app: AppRuntime, account: String, counting: Bool) async throws -> Int? {
        guard rateLimited(app), let limit = app.config.rateLimits.limits[.login] else { return nil }
        let key = "\(app.id)\u{0}\(RateLimits.Route.login.rawValue)\u{0}f\u{0}" + account
        return counting
            ? try await limiter.take(key, limit: limit.perAccount, window: limit.windowSeconds, now: clock.now)
            : try await limiter.peek(key, limit: limit.perAccount, window: limit.windowSeconds, now: clock.now)
    }

    static func tooMany(_ seconds: Int) -> ServiceError {
        ServiceError(
            .tooManyRequests, "too many requests: try again in \(seconds) second\(seconds == 1 ? "" : "s")",
            retryAfter: seconds)
    }

    /// The back-off key of an account: app and email.
    static func backoffAccount(_ app: AppRuntime, _ email: String) -> String { "\(app.id)\u{0}\(email.lowercased())" }
}
