// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Logging
import Lua
import NIOHTTP1
import LuaEJSON
import Synchronization

/// What one plugin call runs for: set while the call runs, read by `context`.
struct PluginInvocation: Sendable {
    /// The function called, for log lines.
    var function: String
    /// The app's configured `values`.
    var values: EJSONDocument
    /// The calling user's id: `context.user` reads the user on first use (most functions never
    /// look, so most calls skip the read).
    var userId: String?
    /// The app's bounds on `context` (``PluginQuota``).
    var quota = PluginQuota()
    /// Mails this call has sent so far.
    var mailsSent = 0
    /// This call's deadline when not the plugins' own (a trigger's).
    var deadline: Duration?
    /// When the call started (`context.http` ends by the call's deadline).
    var started = ContinuousClock.now
    /// Where `context.http` may go (the app's `httpAllowList`).
    var httpAllowList = HTTPAllowList()
    /// Set for a call run as a unit test (``PluginProbe``): what `context` reaches is the
    /// test's, and what it does is recorded instead of done.
    var probe: PluginProbe?
}

/// What `context` reaches, all of it scoped to one app: a plugin state serves one app only,
/// so no call can see another app's users or stored values.
struct PluginServices: Sendable {
    let appId: String
    let store: any AuthStore
    let mailer: any Mailer
    let clock: ServerClock
    let logger: Logger
    /// The mails' templates (`context.email.send` writes a `plugin` mail).
    var templates = MailTemplates.defaults
    /// Mails per address per hour, for the app's states together (copies share it): in this
    /// process, or in the database every instance shares on PostgreSQL.
    var mailsPerAddress: any RateBuckets = RateLimiter()
    /// The plugins' deadline, when a call has none of its own.
    var timeLimit: Duration = .seconds(1)
}

/// Limits on what plugins hand to `context`.
enum PluginLimits {
    static let storeKeyBytes = 256
    static let storeValueBytes = 64 << 10
    /// How deeply a stored value may nest (reading parses 64 levels; canonical EJSON wraps
    /// numbers in one more).
    static let storeValueDepth = 32
    // Custom data's limits are CustomDataLimits: the same wherever it comes in.
    static let emailBodyBytes = 64 << 10
    static let emailSubjectBytes = 998
    static let logLineBytes = 4096
}

/// The host functions behind `context` for one plugin state. `slot` holds the invocation
/// while a call runs; outside a call (a file's top-level code) the functions refuse to work.
final class PluginContext: Sendable {
    let services: PluginServices
    let slot = Mutex<PluginInvocation?>(nil)

    init(services: PluginServices) { self.services = services }

    private func invocation(_ what: String) throws -> PluginInvocation {
        guard let current = slot.withLock({ $0 }) else {
            throw LuaRaise("\(what) is only available while a plugin function runs, not when its file loads")
        }
        return current
    }

    /// The `host` table the prelude receives.
    var hostTable: LuaValue {
        var t = LuaTable()
        t["readonly"] = .function(.readonly)
        t["log"] = .function(log)
        t["now"] = .function(now)
        t["send"] = .function(send)
        t["get"] = .function(get)
        t["set"] = .function(set)
        t["delete"] = .function(delete)
        t["setCustomData"] = .function(setCustomData)
        t["current"] = .function(current)
        t["http"] = .function(http)
        return .table(t)
    }

    /// `context.values` and `context.user`, converted on first use in each call.
    private var current: LuaFunction {
        LuaFunction("context") { [self] call in
            let key = try call.string(1)
            let invocation = try invocation("context.\(key)")
            if key == "values" { return .one(LuaEJSON.lua(invocation.values)) }
            if let probe = invocation.probe { return probe.user.map { .one(LuaEJSON.lua(.document($0))) } ?? .none }
            guard let id = invocation.userId else { return .none }
            let store = services.store, app = services.appId
            return .async {
                guard let user = try await store.user(id: id, app: app) else {
                    throw LuaError(.runtime, "context.user: the calling user no longer exists")
                }
                return [Self.lua(user)]
            }
        }
    }

    /// The user as `context.user` shows it (App Services' field names).
    static func lua(_ user: UserRecord) -> LuaValue {
        var t = LuaTable()
        t["id"] = .string(LuaString(user.id))
        t["type"] = .string(LuaString(user.type))
        t["data"] = LuaEJSON.lua(user.data)
        t["custom_data"] = LuaEJSON.lua(user.customData ?? [:])
        t["identities"] = .table(
            LuaTable(
                array: user.identities.map { identity in
                    .table(
                        LuaTable([
                            "id": .string(LuaString(identity.externalId)),
                            "provider_type": .string(LuaString(identity.providerType)),
                            "provider_id": .string(LuaString(identity.providerId)),
                        ]))
                }))
        return .table(t)
    }

    /// `context.log(...)`: one info line in the server log, tagged with app and function.
    private var log: LuaFunction {
        LuaFunction("log") { [self] call in
            let invocation = try invocation("context.log")
            var parts: [String] = []
            for i in 1..<(call.count + 1) {
                let value = try call.value(i)
                switch value {
                case .string(let s): parts.append(s.description)
                case .table, .object:
                    parts.append((try? LuaEJSON.ejson(value).encodedString(.relaxed)) ?? value.typeName)
                case .integer(let n): parts.append(String(n))
                case .number(let d): parts.append(String(d))
                case .boolean(let b): parts.append(String(b))
                case .nil: parts.append("nil")
                case .function: parts.append("function")
                }
            }
            var line = parts.joined(separator: "\t")
            if line.utf8.count > PluginLimits.logLineBytes {
                line = String(decoding: line.utf8.prefix(PluginLimits.logLineBytes), as: UTF8.self) + "..."
            }
            services.logger.info("\(line)", metadata: ["app": "\(services.appId)", "plugin": "\(invocation.function)"])
            invocation.probe?.log(line)
            return .none
        }
    }

    /// `context.http.get/post/put/delete{url, headers, body}` (the prelude passes the method
    /// first): `{status, headers, body}`, through ``OutboundHTTP``'s gate. A table `body` is sent
    /// as JSON.
    private var http: LuaFunction {
        LuaFunction("http") { [self] call in
            let invocation = try invocation("context.http")
            let method = HTTPMethod(rawValue: try call.string(1))
            let request = try call.table(2)
            guard let text = request["url"].stringValue, let url = OutboundURL(text) else {
                throw LuaArgumentError(index: 1, message: "field 'url' must be an http or https URL with a host")
            }
            var headers: [(String, String)] = []
            if case .table(let t) = request["headers"] {
                for (key, value) in t.fields {
                    guard let name = key.stringValue, let value = value.stringValue,
                        !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 58 }),
                        !value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 })
                    else { throw LuaArgumentError(index: 1, message: "field 'headers' must map header names to strings") }
                    guard name.lowercased() != "host" else { throw LuaArgumentError(index: 1, message: "the Host header is the URL's") }
                    headers.append((name, value))
                }
            }
            var body: [UInt8]?
            switch request["body"] {
            case .nil: break
            case .string(let s): body = Array(s.bytes)
            case let value:
                body = try LuaEJSON.ejson(value).encoded(.relaxed)
                if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/json")) }
            }
            if let body, body.count > OutboundHTTP.maxRequestBytes {
                throw LuaArgumentError(index: 1, message: "field 'body' is over \(OutboundHTTP.maxRequestBytes / 1024) KiB")
            }
            let deadline = invocation.deadline ?? services.timeLimit
            let left = deadline - invocation.started.duration(to: .now)
            guard left > .zero else { throw LuaRaise("context.http: the call's deadline has passed") }
            let allowList = invocation.httpAllowList
            let sendBody = body, sendHeaders = headers
            if let probe = invocation.probe {
                return .async {
                    // The allow list holds as in production; the answer is the test's.
                    guard allowList.allows(url) else { throw LuaError(.runtime, OutboundHTTP.refusal(url).description) }
                    guard let answer = probe.answer(method: method.rawValue, url: text, headers: sendHeaders, body: sendBody) else {
                        throw LuaError(.runtime, "context.http: the test gave no answer for \(method.rawValue) \(text)")
                    }
                    return [Self.lua(answer)]
                }
            }
            return .async {
                let answer: OutboundHTTP.Answer
                do {
                    answer = try await OutboundHTTP.send(
                        method: method, url: url, headers: sendHeaders, body: sendBody, allowList: allowList, timeout: left)
                } catch let failure as OutboundHTTP.Failure {
                    throw LuaError(.runtime, failure.description)
                }
                return [Self.lua(answer)]
            }
        }
    }

    /// An answer as `context.http` returns it: `{status, headers, body}`.
    private static func lua(_ answer: OutboundHTTP.Answer) -> LuaValue {
        var headerTable = LuaTable()
        for (name, value) in answer.headers { headerTable[name] = .string(LuaString(value)) }
        return .table(
            LuaTable([
                "status": .integer(Int64(answer.status)), "headers": .table(headerTable),
                "body": .string(LuaString(bytes: answer.body)),
            ]))
    }

    /// `context.now()`: the server clock in Unix seconds (the dev clock moves it).
    private var now: LuaFunction {
        LuaFunction("now") { [self] _ in
            .one(.integer(slot.withLock { $0?.probe?.now } ?? services.clock.now))
        }
    }

    /// `context.email.send{to=, subject=, body=}`.
    private var send: LuaFunction {
        LuaFunction("send") { [self] call in
            _ = try invocation("context.email.send")
            let t = try call.table(1)
            func field(_ name: String, limit: Int) throws -> String {
                guard let text = t[name].stringValue, !text.isEmpty else {
                    throw LuaArgumentError(index: 1, message: "field '\(name)' must be a non-empty string")
                }
                guard text.utf8.count <= limit else {
                    throw LuaArgumentError(index: 1, message: "field '\(name)' is longer than \(limit) bytes")
                }
                return text
            }
            let to = try field("to", limit: 254)
            guard to.contains("@"), !to.contains(where: \.isWhitespace) else {
                throw LuaArgumentError(index: 1, message: "field 'to' is not an email address")
            }
            try countMail(to: to)
            let mail = services.templates.render(
                "plugin", app: services.appId,
                values: [
                    "app": services.appId, "email": to, "subject": try field("subject", limit: PluginLimits.emailSubjectBytes),
                    "body": try field("body", limit: PluginLimits.emailBodyBytes),
                ])
            let message = OutboxMessage(
                to: to, subject: mail.subject, body: mail.text, kind: "plugin",
                token: "", tokenId: "", link: "", sentAt: services.clock.now, html: mail.html)
            if let probe = try invocation("context.email.send").probe {
                probe.mail(to: to, subject: message.subject, body: message.body)
                return .none
            }
            let (mailer, app, limiter, now) = (services.mailer, services.appId, services.mailsPerAddress, services.clock.now)
            let hourly = try invocation("context.email.send").quota.mailsPerAddressPerHour
            return .async {
                // The address's hourly share, counted where every instance counts it.
                if hourly > 0, try await limiter.take(app + "\u{0}plugin-mail\u{0}" + Self.mailbox(to), limit: hourly, window: 3600, now: now) != nil
                {
                    throw LuaRaise(
                        "context.email.send: at most \(hourly) mails an hour to one address (pluginLimits.mailsPerAddressPerHour)")
                }
                try await mailer.send(message, app: app)
                return []
            }
        }
    }

    /// Counts a mail against the call's `mailsPerCall`; raises naming the limit past it. (The
    /// address's hourly share is counted when the mail is sent.)
    private func countMail(to: String) throws {
        let quota = try invocation("context.email.send").quota
        let sent = slot.withLock { (current: inout PluginInvocation?) -> Int in
            current?.mailsSent += 1
            return current?.mailsSent ?? 0
        }
        guard quota.mailsPerCall == 0 || sent <= quota.mailsPerCall else {
            throw LuaRaise("context.email.send: at most \(quota.mailsPerCall) mails per call (pluginLimits.mailsPerCall)")
        }
    }

    /// The mailbox an address reaches, as far as a count per address goes: ASCII case, a
    /// `+tag` and a trailing dot of the domain make no other mailbox (`Ada+1@Example.com.` is
    /// `ada@example.com`).
    static func mailbox(_ address: String) -> String {
        let lower = Emails.asciiLowercased(address)
        guard let at = lower.lastIndex(of: "@") else { return lower }
        let local = lower[..<at].prefix { $0 != "+" }
        var domain = lower[lower.index(after: at)...]
        while domain.hasSuffix(".") { domain = domain.dropLast() }
        return local + "@" + domain
    }

    private func key(_ call: LuaCall, _ what: String) throws -> String {
        _ = try invocation(what)
        let key = try call.string(1)
        guard !key.isEmpty, key.utf8.count <= PluginLimits.storeKeyBytes else {
            throw LuaArgumentError(index: 1, message: "a key is 1 to \(PluginLimits.storeKeyBytes) bytes")
        }
        return key
    }

    /// `context.store.get(key)`: the stored value, or nil.
    private var get: LuaFunction {
        LuaFunction("get") { [self] call in
            let key = try key(call, "context.store.get")
            if let probe = try invocation("context.store.get").probe { return .one(probe.get(key).map(LuaEJSON.lua) ?? .nil) }
            let store = services.store, app = services.appId
            return .async {
                guard let value = try await store.pluginValue(app: app, key: key) else { return [.nil] }
                return [LuaEJSON.lua(value)]
            }
        }
    }

    /// `context.store.set(key, value)`: any EJSON-able value up to 64 KiB; nil deletes.
    private var set: LuaFunction {
        LuaFunction("set") { [self] call in
            let key = try key(call, "context.store.set")
            let store = services.store, app = services.appId
            let probe = try invocation("context.store.set").probe
            if call.isNil(2), let probe {
                _ = probe.set(key, nil, keyLimit: .max)
                return .none
            }
            if call.isNil(2) {
                return .async {
                    try await store.deletePluginValue(app: app, key: key); return []
                }
            }
            let raw = try call.value(2)
            let value: EJSON
            do throws(LuaEJSON.ConversionError) { value = try LuaEJSON.ejson(raw) } catch {
                throw LuaArgumentError(index: 2, message: error.description)
            }
            let size = value.encoded(.canonical).count
            guard size <= PluginLimits.storeValueBytes else {
                throw LuaArgumentError(index: 2, message: "value is \(size) bytes as EJSON, over the limit of \(PluginLimits.storeValueBytes)")
            }
            guard value.depth <= PluginLimits.storeValueDepth else {
                throw LuaArgumentError(index: 2, message: "value nests \(value.depth) levels, over the limit of \(PluginLimits.storeValueDepth)")
            }
            let quota = try invocation("context.store.set").quota.storeKeys
            let limit = quota == 0 ? Int.max : quota
            if let probe {
                guard probe.set(key, value, keyLimit: limit) else {
                    throw LuaRaise(
                        "context.store.set: the app's store holds \(limit) keys, its limit (pluginLimits.storeKeys): delete some first")
                }
                return .none
            }
            return .async {
                guard try await store.setPluginValue(value, app: app, key: key, keyLimit: limit) else {
                    throw LuaError(
                        .runtime,
                        "context.store.set: the app's store holds \(limit) keys, its limit (pluginLimits.storeKeys): "
                            + "delete some first")
                }
                return []
            }
        }
    }

    /// `context.store.delete(key)`.
    private var delete: LuaFunction {
        LuaFunction("delete") { [self] call in
            let key = try key(call, "context.store.delete")
            if let probe = try invocation("context.store.delete").probe {
                _ = probe.set(key, nil, keyLimit: .max)
                return .none
            }
            let store = services.store, app = services.appId
            return .async {
                try await store.deletePluginValue(app: app, key: key); return []
            }
        }
    }

    /// `context.users.setCustomData(userId, table)`: the document becomes the `user_data` claim
    /// of that user's next access tokens; nil clears it. Only users of this app.
    private var setCustomData: LuaFunction {
        LuaFunction("setCustomData") { [self] call in
            _ = try invocation("context.users.setCustomData")
            let userId = try call.string(1)
            var document: EJSONDocument?
            if !call.isNil(2) {
                guard call.isTable(2) else { throw call.typeError(2, expected: "table") }
                let d: EJSONDocument
                do {
                    guard case .document(let converted) = try LuaEJSON.ejson(try call.value(2)) else {
                        throw LuaArgumentError(index: 2, message: "custom data must be a table with named fields, not a list")
                    }
                    d = converted
                } catch let error as LuaEJSON.ConversionError {
                    throw LuaArgumentError(index: 2, message: error.description)
                }
                document = d
                if let problem = CustomDataLimits.problem(d) { throw LuaArgumentError(index: 2, message: problem) }
            }
            if let probe = try invocation("context.users.setCustomData").probe {
                probe.setCustomData(document, userId: userId)
                return .none
            }
            let store = services.store, app = services.appId, data = document
            return .async {
                guard try await store.setCustomData(data, userId: userId, app: app) else {
                    throw LuaError(.runtime, "context.users.setCustomData: no user '\(userId)' in this app")
                }
                return []
            }
        }
    }
}
