// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua

/// What `context` reads from and does to the world during one call: in production the app's
/// database, its mail queue and the network (``LivePluginEffects``); in a plugin unit test
/// what the test gave, and a record of what the call did (``PluginProbe``). Every check of
/// `context`'s arguments and limits comes first, in ``PluginContext``, so that a test sees the
/// very calls production sees.
protocol PluginEffects: Sendable {
    /// The time `context.now()` gives, when it is not the server clock's.
    var now: Int64? { get }
    /// `context.user`: the calling user `userId` (nil when no user calls), as Lua sees it.
    func user(id userId: String?) async throws -> LuaValue
    /// A log line the call wrote (the server's log has it already).
    func logged(_ line: String)
    /// The app's stored value of `key`, or nil.
    func value(_ key: String) async throws -> EJSON?
    /// Stores (nil: deletes) `key`; false when a new key would pass `keyLimit`.
    func setValue(_ value: EJSON?, key: String, keyLimit: Int) async throws -> Bool
    /// Sets (nil: clears) a user's custom data; false when the app has no such user.
    func setCustomData(_ document: EJSONDocument?, userId: String) async throws -> Bool
    /// Sends a plugin mail, at most `hourly` an hour to one mailbox (0: no limit).
    func send(_ message: OutboxMessage, hourly: Int) async throws
    /// Makes a `context.http` request, within `allowList` and `timeout`.
    func http(_ request: PluginHTTPRequest, allowList: HTTPAllowList, timeout: Duration) async throws -> OutboundHTTP.Answer
}

/// A `context.http` request, its arguments checked.
struct PluginHTTPRequest: Sendable {
    var method: String
    /// The URL as the plugin wrote it.
    var text: String
    var url: OutboundURL
    var headers: [(String, String)]
    var body: [UInt8]?
}
