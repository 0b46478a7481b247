// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import NIOHTTP1

/// `context` in production: the app's database, its mail queue and the network.
struct LivePluginEffects: PluginEffects {
    let services: PluginServices

    var now: Int64? { nil }

    func user(id userId: String?) async throws -> LuaValue {
        guard let userId else { return .nil }
        guard let user = try await services.store.user(id: userId, app: services.appId) else {
            throw LuaError(.runtime, "context.user: the calling user no longer exists")
        }
        return PluginContext.lua(user)
    }

    func logged(_ line: String) {}

    func value(_ key: String) async throws -> EJSON? {
        try await services.store.pluginValue(app: services.appId, key: key)
    }

    func setValue(_ value: EJSON?, key: String, keyLimit: Int) async throws -> Bool {
        guard let value else {
            try await services.store.deletePluginValue(app: services.appId, key: key)
            return true
        }
        return try await services.store.setPluginValue(value, app: services.appId, key: key, keyLimit: keyLimit)
    }

    func setCustomData(_ document: EJSONDocument?, userId: String) async throws -> Bool {
        try await services.store.setCustomData(document, userId: userId, app: services.appId)
    }

    func send(_ message: OutboxMessage, hourly: Int) async throws {
        // The address's hourly share, counted where every instance counts it.
        let bucket = services.appId + "\u{0}plugin-mail\u{0}" + PluginContext.mailbox(message.to)
        if hourly > 0, try await services.mailsPerAddress.take(bucket, limit: hourly, window: 3600, now: services.clock.now) != nil {
            throw LuaRaise("context.email.send: at most \(hourly) mails an hour to one address (pluginLimits.mailsPerAddressPerHour)")
        }
        try await services.mailer.send(message, app: services.appId)
    }

    func http(_ request: PluginHTTPRequest, allowList: HTTPAllowList, timeout: Duration) async throws -> OutboundHTTP.Answer {
        do {
            return try await OutboundHTTP.send(
                method: HTTPMethod(rawValue: request.method), url: request.url, headers: request.headers, body: request.body,
                allowList: allowList, timeout: timeout)
        } catch let failure as OutboundHTTP.Failure {
            throw LuaError(.runtime, failure.description)
        }
    }
}
