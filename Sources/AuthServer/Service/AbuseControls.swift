// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Rate limits and failed-login back-off on the unauthenticated routes
/// (docs/server/abuse-controls.md). Over a limit the answer is 429 `TooManyRequests` with `Retry-After`.
struct AbuseControls {
    /// The buckets, in this process.
    let limiter: RateLimiter
    let clock: ServerClock
    /// Dev mode: limits are off unless an app's config turns them on.
    let dev: Bool

    /// True when `app` applies its rate limits: as configured, else on except in dev mode.
    func rateLimited(_ app: AppRuntime) -> Bool {
        app.config.rateLimits.enabled ?? !dev
    }

    /// Counts one request of `route` against the client address and, when there is one, the
    /// account; throws `TooManyRequests` when either is over its limit.
    func checkRate(_ route: RateLimits.Route, app: AppRuntime, address: String, account: String? = nil) throws(ServiceError) {
        guard rateLimited(app), let limit = app.config.rateLimits.limits[route] else { return }
        let now = clock.now
        let prefix = "\(app.id)\u{0}\(route.rawValue)\u{0}"
        if let wait = limiter.take(prefix + "a\u{0}" + address, limit: limit.perAddress, window: limit.windowSeconds, now: now) {
            throw Self.tooMany(wait)
        }
        if let account,
            let wait = limiter.take(
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
    func passwordFailureLimit(app: AppRuntime, account: String, counting: Bool) -> Int? {
        guard rateLimited(app), let limit = app.config.rateLimits.limits[.login] else { return nil }
        let key = "\(app.id)\u{0}\(RateLimits.Route.login.rawValue)\u{0}f\u{0}" + account
        return counting
            ? limiter.take(key, limit: limit.perAccount, window: limit.windowSeconds, now: clock.now)
            : limiter.peek(key, limit: limit.perAccount, window: limit.windowSeconds, now: clock.now)
    }

    /// Sign-ins under way one client may start within a flow's lifetime (10 minutes), and its
    /// network (an IPv4 /24, an IPv6 /48) together: the app's 20,000 would otherwise be one
    /// client's to fill (a /48 holds 65,536 /64s, each a client of its own).
    static let signInShare = (client: 100, network: 1000)

    /// Counts a sign-in started by the client at `address` (``AuthRequestContext/clientAddress``)
    /// against its share and its network's; 429 over either. On with the app's rate limits.
    func checkSignInShare(app: AppRuntime, address: String) throws(ServiceError) {
        guard rateLimited(app) else { return }
        let window = Int(OAuthFlows.flowLifetime)
        let prefix = "\(app.id)\u{0}signin\u{0}"
        for (key, limit) in [("c\u{0}" + address, Self.signInShare.client), ("n\u{0}" + Self.network(of: address), Self.signInShare.network)] {
            if let wait = limiter.take(prefix + key, limit: limit, window: window, now: clock.now) {
                throw ServiceError(
                    .tooManyRequests, "too many sign-ins under way from your network: try again in \(wait) second\(wait == 1 ? "" : "s")",
                    retryAfter: wait)
            }
        }
    }

    /// The network a client key belongs to: `a.b.c.0/24` of an IPv4 address, the /48 of an
    /// IPv6 /64 (``AuthRequestContext/clientKey(_:)`` writes its 8 bytes in hex, dot-separated).
    static func network(of client: String) -> String {
        if client.hasSuffix("::/64") {
            return client.dropLast(5).split(separator: ".").prefix(6).joined(separator: ".") + "::/48"
        }
        let parts = client.split(separator: ".")
        return parts.count == 4 ? parts.prefix(3).joined(separator: ".") + ".0/24" : client
    }

    static func tooMany(_ seconds: Int) -> ServiceError {
        ServiceError(
            .tooManyRequests, "too many requests: try again in \(seconds) second\(seconds == 1 ? "" : "s")",
            retryAfter: seconds)
    }

    /// The back-off key of an account: app and email.
    static func backoffAccount(_ app: AppRuntime, _ email: String) -> String { "\(app.id)\u{0}\(email.lowercased())" }
}
