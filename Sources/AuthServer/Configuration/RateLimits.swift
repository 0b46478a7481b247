// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// How often a client address, and an account, may call the unauthenticated routes that cost
/// the server (a password hash, a new user) or reach a person (a mail), and plugin functions
/// (`functions/call`): app key `rateLimits`.
///
/// ```json
/// "rateLimits": {
///   "enabled": true,
///   "login": { "perAddress": 30, "perAccount": 10, "windowSeconds": 60 },
///   "mail": { "perAddress": 10, "perAccount": 3, "windowSeconds": 3600 }
/// }
/// ```
///
/// Each route class allows `perAddress` requests per client address and `perAccount` per
/// email (or API key, or custom-function payload) in any `windowSeconds`, refilling
/// continuously (a token bucket). A class or a field left out keeps its default; 0 turns that
/// limit off. `enabled` defaults to on, and to off in dev mode (the playground, where people
/// run load scripts against their own server).
public struct RateLimits: Sendable, Equatable {
    /// One route class's limits.
    public struct Limit: Sendable, Equatable {
        /// Requests per client address per window; 0 = no limit.
        public var perAddress: Int
        /// Requests per account per window; 0 = no limit.
        public var perAccount: Int
        public var windowSeconds: Int

        public init(perAddress: Int, perAccount: Int, windowSeconds: Int) {
            self.perAddress = perAddress
            self.perAccount = perAccount
            self.windowSeconds = windowSeconds
        }
    }

    /// The route classes.
    public enum Route: String, Sendable, CaseIterable {
        /// Logins that check a secret: email/password, API key, custom function, custom token.
        case login
        /// Anonymous logins (each makes a user).
        case anonymous
        /// `register`.
        case register
        /// Mails to a person: `confirm/send`, `reset/send`.
        case mail
        /// Uses of a mailed token: `confirm`, `reset`.
        case token
        /// Reset and confirmation functions: `reset/call`, `confirm/call`.
        case function
        /// `functions/call`, per address and per calling user.
        case call
        /// Text messages to a phone (a phone sign-in's code), per address and per number.
        case sms
    }

    /// nil: on, except in dev mode.
    public var enabled: Bool?
    public var limits: [Route: Limit]

    /// What a real app would use: a person mistyping a password, a family behind one
    /// address, an app opening on many phones behind one carrier NAT.
    public static let defaults: [Route: Limit] = [
        .login: Limit(perAddress: 60, perAccount: 10, windowSeconds: 60),
        .anonymous: Limit(perAddress: 100, perAccount: 0, windowSeconds: 3600),
        .register: Limit(perAddress: 20, perAccount: 0, windowSeconds: 3600),
        .mail: Limit(perAddress: 20, perAccount: 5, windowSeconds: 3600),
        .token: Limit(perAddress: 30, perAccount: 10, windowSeconds: 600),
        .function: Limit(perAddress: 20, perAccount: 10, windowSeconds: 3600),
        .call: Limit(perAddress: 600, perAccount: 300, windowSeconds: 60),
        .sms: Limit(perAddress: 10, perAccount: 5, windowSeconds: 3600),
    ]

    public init(enabled: Bool? = nil, limits: [Route: Limit] = RateLimits.defaults) {
        self.enabled = enabled
        self.limits = limits
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        self.init()
        if let v = r.value("enabled"), v != .null {
            guard case .bool(let b) = v else { throw r.mismatch("enabled", "true, false or null", v) }
            enabled = b
        }
        for route in Route.allCases {
            guard let v = r.value(route.rawValue) else { continue }
            var l = try ConfigReader(v, path: r.keyPath(route.rawValue))
            var limit = Self.defaults[route]!
            limit.perAddress = Int(try l.integer("perAddress", in: 0...1_000_000) ?? Int64(limit.perAddress))
            limit.perAccount = Int(try l.integer("perAccount", in: 0...1_000_000) ?? Int64(limit.perAccount))
            limit.windowSeconds = Int(try l.integer("windowSeconds", in: 1...86_400) ?? Int64(limit.windowSeconds))
            try l.finish()
            limits[route] = limit
        }
        try r.finish()
    }

    var ejson: EJSON {
        var doc: EJSONDocument = ["enabled": enabled.map(EJSON.bool) ?? .null]
        for route in Route.allCases {
            let l = limits[route]!
            doc[route.rawValue] = [
                "perAddress": .int64(Int64(l.perAddress)), "perAccount": .int64(Int64(l.perAccount)),
                "windowSeconds": .int64(Int64(l.windowSeconds)),
            ]
        }
        return .document(doc)
    }
}
