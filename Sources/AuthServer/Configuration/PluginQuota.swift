// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Bounds on what an app's plugins may do through `context`, whoever calls them: app key
/// `pluginLimits`. Each is a count that a careless or hostile caller could otherwise run up
/// without end (a function that mails whatever address it is given, a store that grows by a
/// key per call).
///
/// ```json
/// "pluginLimits": { "mailsPerCall": 5, "mailsPerAddressPerHour": 10, "storeKeys": 10000 }
/// ```
///
/// Past one, the `context` function raises an error naming the limit and its key. A field left
/// out keeps its default; 0 turns that limit off (as in `rateLimits`).
public struct PluginQuota: Sendable, Equatable {
    /// `context.email.send` calls in one plugin call.
    public var mailsPerCall = 5
    /// Mails the app's plugins send one mailbox in any hour (counted by each server process;
    /// `+tags`, ASCII case and a trailing dot make no other mailbox).
    public var mailsPerAddressPerHour = 10
    /// Keys in the app's `context.store` (counted in the write's transaction: concurrent writes
    /// of new keys on PostgreSQL can pass it by as many as run at once).
    public var storeKeys = 10_000

    public init() {}

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        self.init()
        mailsPerCall = Int(try r.integer("mailsPerCall", in: 0...1000) ?? Int64(mailsPerCall))
        mailsPerAddressPerHour = Int(try r.integer("mailsPerAddressPerHour", in: 0...100_000) ?? Int64(mailsPerAddressPerHour))
        storeKeys = Int(try r.integer("storeKeys", in: 0...10_000_000) ?? Int64(storeKeys))
        try r.finish()
    }

    var ejson: EJSON {
        [
            "mailsPerCall": .int64(Int64(mailsPerCall)), "mailsPerAddressPerHour": .int64(Int64(mailsPerAddressPerHour)),
            "storeKeys": .int64(Int64(storeKeys)),
        ]
    }
}
