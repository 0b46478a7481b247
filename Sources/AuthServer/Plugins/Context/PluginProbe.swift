// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON
import Synchronization

/// A plugin call run as a unit test (dev mode's `plugins/run`): the test gives what the call
/// would find (the calling user, the clock, the store's values, the answers of `context.http`)
/// and gets back what it did (its log lines, the mails it sent, the store keys it wrote, the
/// custom data it set, the requests it made), none of which reaches the server's store, mail
/// queue or the network. Everything else is the production path: the same sandbox, limits,
/// argument checks and allow list.
final class PluginProbe: Sendable {
    /// A canned answer of `context.http`, for the first request of its method (any, when nil)
    /// and URL.
    struct Answer: Sendable {
        var method: String?
        var url: String
        var answer: OutboundHTTP.Answer
    }

    /// `context.user`: the document given, or none.
    let user: EJSONDocument?
    /// `context.now()`, when fixed.
    let now: Int64?
    let answers: [Answer]
    private let state: Mutex<State>

    /// The most entries each list of the report keeps: a call that logs or writes in a loop
    /// until its deadline must not fill the server's memory. Past it, `dropped` counts.
    static let keep = 1000

    private struct State {
        var store: [String: EJSON]
        var logs: [EJSON] = []
        var mails: [EJSON] = []
        var storeWrites: [EJSON] = []
        var customData: [EJSON] = []
        var requests: [EJSON] = []
        var dropped = 0

        mutating func append(_ entry: EJSON, to list: WritableKeyPath<State, [EJSON]>) {
            if self[keyPath: list].count < PluginProbe.keep { self[keyPath: list].append(entry) } else { dropped += 1 }
        }
    }

    init(user: EJSONDocument?, now: Int64?, store: [String: EJSON], answers: [Answer]) {
        self.user = user
        self.now = now
        self.answers = answers
        state = Mutex(State(store: store))
    }

    func log(_ line: String) { state.withLock { $0.append(.string(line), to: \.logs) } }

    func mail(to: String, subject: String, body: String) {
        state.withLock { $0.append(["to": .string(to), "subject": .string(subject), "body": .string(body)], to: \.mails) }
    }

    func get(_ key: String) -> EJSON? { state.withLock { $0.store[key] } }

    /// Sets (or, for nil, deletes) `key`; false when a new key would pass `keyLimit`.
    func set(_ key: String, _ value: EJSON?, keyLimit: Int) -> Bool {
        state.withLock { s in
            if let value, s.store[key] == nil, s.store.count >= keyLimit { return false }
            s.store[key] = value
            s.append(["key": .string(key), "value": value ?? .null], to: \.storeWrites)
            return true
        }
    }

    func recordCustomData(_ document: EJSONDocument?, userId: String) {
        state.withLock {
            $0.append(["userId": .string(userId), "customData": document.map(EJSON.document) ?? .null], to: \.customData)
        }
    }

    /// Records a request and returns its canned answer, or nil when the test gave none.
    func answer(method: String, url: String, headers: [(String, String)], body: [UInt8]?) -> OutboundHTTP.Answer? {
        var request: EJSONDocument = ["method": .string(method), "url": .string(url)]
        var headerDocument: EJSONDocument = [:]
        for (name, value) in headers { headerDocument[name] = .string(value) }
        request["headers"] = .document(headerDocument)
        request["body"] = body.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null
        state.withLock { $0.append(.document(request), to: \.requests) }
        return answers.first { ($0.method == nil || $0.method?.uppercased() == method) && $0.url == url }?.answer
    }

    /// What the call did: `logs`, `mails`, `storeWrites`, `customData`, `http` (the requests,
    /// in order), `store` (the values after the call) and, when a list passed ``keep``,
    /// `dropped` (how many entries were left out).
    var report: EJSONDocument {
        state.withLock { s in
            var store: EJSONDocument = [:]
            for key in s.store.keys.sorted() { store[key] = s.store[key] }
            var report: EJSONDocument = [
                "logs": .array(s.logs), "mails": .array(s.mails), "storeWrites": .array(s.storeWrites),
                "customData": .array(s.customData), "http": .array(s.requests), "store": .document(store),
            ]
            if s.dropped > 0 { report["dropped"] = .int64(Int64(s.dropped)) }
            return report
        }
    }
}

/// `context` in a plugin unit test: what the test gave, and a record of what the call did.
extension PluginProbe: PluginEffects {
    func user(id userId: String?) async throws -> LuaValue { user.map { LuaEJSON.lua(.document($0)) } ?? .nil }

    func logged(_ line: String) { log(line) }

    func value(_ key: String) async throws -> EJSON? { get(key) }

    func setValue(_ value: EJSON?, key: String, keyLimit: Int) async throws -> Bool { set(key, value, keyLimit: keyLimit) }

    func setCustomData(_ document: EJSONDocument?, userId: String) async throws -> Bool {
        recordCustomData(document, userId: userId)
        return true
    }

    func send(_ message: OutboxMessage, hourly: Int) async throws { mail(to: message.to, subject: message.subject, body: message.body) }

    func http(_ request: PluginHTTPRequest, allowList: HTTPAllowList, timeout: Duration) async throws -> OutboundHTTP.Answer {
        // The allow list holds as in production; the answer is the test's.
        guard allowList.allows(request.url) else { throw LuaError(.runtime, OutboundHTTP.refusal(request.url).description) }
        guard let answer = answer(method: request.method, url: request.text, headers: request.headers, body: request.body) else {
            throw LuaError(.runtime, "context.http: the test gave no answer for \(request.method) \(request.text)")
        }
        return answer
    }
}
