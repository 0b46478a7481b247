// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Testing

/// Authentication triggers through HTTP on a real server: each operation with its provider
/// filter, the `authEvent` a function gets, retries and giving up (audited), the dev API's
/// wait, and the config's checks.
@Suite(.timeLimit(.minutes(5))) struct TriggerTests {
    static let plugin = """
        local m = {}
        function m.record(event)
          local key = event.operationType .. ":" .. event.user.id
          local seen = context.store.get(key) or {}
          seen[#seen + 1] = {
            providers = event.providers, identities = #event.user.identities, email = event.user.data.email,
            custom = event.user.custom_data, time = event.time, user = context.user ~= nil,
          }
          context.store.set(key, seen)
        end
        function m.fail() error("the webhook is down") end
        function m.stats(key) return context.store.get(key) end
        return m
        """

    /// A server with the trigger plugin (``AdminHarness/withServer(plugins:configure:_:)``).
    /// `frozen`: the server's clock moves only when the dev API advances it (a retry is due
    /// only then, however long a busy machine takes).
    static func withServer(frozen: Bool = false, _ body: @escaping @Sendable (Client, String) async throws -> Void) async throws {
        try await AdminHarness.withServer(
            plugins: ["triggers.lua": plugin], configure: { if frozen { $0.clock = ServerClock(frozenAt: ServerClock().now) } }, body)
    }

    static func setTriggers(_ c: Client, _ triggers: EJSON, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reply = try await c.call(.patch, "\(Routes.dev)/apps/local/config", json: ["triggers": triggers])
        #expect(reply.status == 200, "\(reply.body)", sourceLocation: sourceLocation)
    }

    static func trigger(_ name: String, _ function: String, _ operation: String, providers: [String]? = nil, extra: EJSONDocument = [:])
        -> EJSON
    {
        var config: EJSONDocument = ["operation_type": .string(operation)]
        if let providers { config["providers"] = .array(providers.map(EJSON.string)) }
        var doc: EJSONDocument = ["name": .string(name), "type": "AUTHENTICATION", "function_name": .string(function), "config": .document(config)]
        for (k, v) in extra { doc[k] = v }
        return .document(doc)
    }

    /// Waits through the dev API until no run is queued; returns how many still are.
    static func wait(_ c: Client, timeout: Int = 30) async throws -> Int64 {
        let reply = try await c.call(.post, "\(Routes.dev)/apps/local/triggers/wait", json: ["timeoutSeconds": .int64(Int64(timeout))])
        #expect(reply.status == 200, "\(reply.body)")
        return try #require(reply.body["pending"]?.integerValue)
    }

    static func runs(_ c: Client, state: String? = nil) async throws -> [EJSON] {
        let reply = try await c.call(.get, "\(Routes.dev)/apps/local/triggers" + (state.map { "?state=\($0)" } ?? ""))
        return try #require(reply.body.arrayValue, "\(reply.body)")
    }

    @Test func eachOperationRunsTheTriggersThatFollowItsProvider() async throws {
        try await Self.withServer { c, _ in
            try await Self.setTriggers(
                c,
                [
                    Self.trigger("onSignup", "record", "CREATE", providers: ["local-userpass"]),
                    Self.trigger("onLogin", "record", "LOGIN", providers: ["anon-user", "local-userpass"]),
                    Self.trigger("onDelete", "record", "DELETE"),
                    Self.trigger("off", "fail", "LOGIN", extra: ["disabled": true]),
                ])
            let anonymous = try await c.anonymous()
            let reader = try #require(anonymous["access_token"])
            try await c.registerConfirmed("tri@example.com")
            let first = try await c.emailLogin("tri@example.com", "password1")
            let again = try await c.emailLogin("tri@example.com", "password1")
            #expect(first.status == 200 && again.status == 200)
            let id = try #require(first["user_id"])
            #expect((try await c.call(.delete, Routes.base + "/auth/delete", token: try #require(again["access_token"]))).status == 200)
            #expect(try await Self.wait(c) == 0, "every run ran")

            func seen(_ key: String) async throws -> [EJSON] {
                try await c.function("stats", [.string(key)], token: reader).body.arrayValue ?? []
            }
            let created = try await seen("CREATE:\(id)")
            #expect(created.count == 1, "\(created)")
            #expect(created.first?["providers"] == ["local-userpass"] && created.first?["identities"]?.integerValue == 1)
            #expect(created.first?["email"] == "tri@example.com" && created.first?["user"] == false, "context.user is nil")
            if case .date? = created.first?["time"] {} else { Issue.record("time is not a date: \(created)") }
            #expect(try await seen("LOGIN:\(id)").count == 2)
            let deleted = try await seen("DELETE:\(id)")
            #expect(deleted.count == 1 && deleted.first?["providers"] == ["local-userpass"], "\(deleted)")
            let anonymousId = try #require(anonymous["user_id"])
            #expect(try await seen("CREATE:\(anonymousId)").isEmpty, "the CREATE trigger follows local-userpass only")
            #expect(try await seen("LOGIN:\(anonymousId)").count == 1)

            let runs = try await Self.runs(c)
            // The anonymous login; the first email login (CREATE and LOGIN), the second; the deletion.
            #expect(runs.count == 5 && runs.allSatisfy { $0["state"] == "done" && $0["attempts"]?.integerValue == 1 }, "\(runs)")
            #expect(runs.compactMap { $0["operation"]?.stringValue }.sorted() == ["CREATE", "DELETE", "LOGIN", "LOGIN", "LOGIN"])
            let deletion = try #require(runs.first { $0["operation"] == "DELETE" })
            #expect(deletion["trigger"] == "onDelete" && deletion["event"]?["user"]?["id"]?.stringValue == id)
            #expect(deletion["event"]?["operationType"] == "DELETE")
        }
    }

    @Test func aFailingTriggerIsTriedAgainThenGivenUpWithItsErrorAndAudited() async throws {
        try await Self.withServer(frozen: true) { c, database in
            try await Self.setTriggers(c, [Self.trigger("webhook", "fail", "LOGIN", extra: ["giveUpAfterSeconds": 60])])
            #expect((try await c.anonymous()).status == 200, "a trigger never fails the request")
            // The first attempt ends when its error is written (a busy machine may take a while);
            // the run then waits for its next attempt, which the frozen clock holds back.
            var run = try #require(try await Self.runs(c).first)
            let deadline = ContinuousClock.now + .seconds(30)
            while run["lastError"] == nil || run["lastError"] == .null, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                run = try #require(try await Self.runs(c).first)
            }
            #expect(try await Self.wait(c, timeout: 1) == 1, "the run waits for its next attempt")
            #expect(run["state"] == "queued" && run["attempts"]?.integerValue == 1)
            #expect(run["lastError"]?.stringValue?.hasSuffix("the webhook is down") == true, "\(run)")

            _ = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 61])
            #expect(try await Self.wait(c) == 0)
            run = try #require(try await Self.runs(c, state: "failed").first)
            #expect(run["attempts"]?.integerValue == 2)
            #expect(run["lastError"]?.stringValue?.hasPrefix("gave up after 2 attempts in 60 s: ") == true, "\(run)")
            let admin = try await AdminHarness.admin(c, .get, "/triggers?state=failed")
            #expect(admin.status == 200 && admin.body["runs"]?.arrayValue?.count == 1, "\(admin.body)")

            let store = try SQLiteStore(path: database)
            var audited: [AuditEvent] = []
            for _ in 0..<500 where audited.isEmpty {
                audited = try await store.auditEvents(AuditFilter(event: "trigger_failed"))
                if audited.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(audited.count == 1 && audited.first?.detail?.contains("webhook (LOGIN): gave up") == true, "\(audited)")
        }
    }

    @Test func theConfigTakesAppServicesTriggerFilesAndChecksThem() throws {
        // An App Services export's trigger file, as it is.
        let exported: EJSON = [
            "id": "6560f0c1d4f1a2b3c4d5e6f7", "name": "onLogin", "type": "AUTHENTICATION", "disabled": false,
            "config": ["operation_type": "LOGIN", "providers": ["anon-user", "local-userpass"]],
            "event_processors": ["FUNCTION": ["config": ["function_name": "recordLogin"]]],
        ]
        let app = try AppConfiguration(ejson: ["id": "a", "triggers": [exported]], path: "apps[0]")
        #expect(app.triggers.first?.functionName == "recordLogin" && app.triggers.first?.operation == .login)
        #expect(app.triggers.first?.providers == ["anon-user", "local-userpass"])
        let bad: [(EJSON, String)] = [
            (["name": "x", "type": "DATABASE", "function_name": "f", "config": ["operation_type": "LOGIN"]], "apps[0].triggers[0].type"),
            (["name": "x", "function_name": "f", "config": ["operation_type": "UPDATE"]], "apps[0].triggers[0].config.operation_type"),
            (["name": "x", "config": ["operation_type": "LOGIN"]], "apps[0].triggers[0].function_name"),
            (["name": "x", "function_name": "f", "config": ["operation_type": "LOGIN"], "timeLimitSeconds": 0], "timeLimitSeconds"),
        ]
        for (trigger, key) in bad {
            #expect(throws: ConfigError.self) { try AppConfiguration(ejson: ["id": "a", "triggers": [trigger]], path: "apps[0]") }
            do {
                _ = try AppConfiguration(ejson: ["id": "a", "triggers": [trigger]], path: "apps[0]")
            } catch {
                #expect(error.key.hasSuffix(key), "\(error)")
            }
        }
        let twice = Self.trigger("same", "f", "LOGIN")
        #expect(throws: ConfigError.self) { try AppConfiguration(ejson: ["id": "a", "triggers": [twice, twice]], path: "apps[0]") }
    }

    @Test func aTriggerMustNameAPluginFunctionAndIsNotCallable() async throws {
        try await Self.withServer { c, _ in
            let unknown = try await c.call(
                .patch, "\(Routes.dev)/apps/local/config", json: ["triggers": [Self.trigger("t", "nowhere", "LOGIN")]])
            #expect(unknown.status == 400 && unknown.message?.contains("triggers[0].function_name") == true, "\(unknown.body)")
            try await Self.setTriggers(c, [Self.trigger("t", "record", "LOGIN")])
            let token = try #require(try await c.anonymous()["access_token"])
            #expect((try await c.function("record", [[:]], token: token)).code == "FunctionNotFound")
        }
    }
}

extension TriggerTests {
    /// A listing's `state` and `limit` are checked the same way by the dev and the admin API: a
    /// 400 naming the parameter.
    @Test func aListingsQueryIsCheckedByBothAPIs() async throws {
        try await Self.withServer { c, _ in
            for (query, named) in [("state=bogus", "state must be"), ("limit=0", "limit must be 1 to 1000"), ("limit=x", "limit must be")] {
                let dev = try await c.call(.get, "\(Routes.dev)/apps/local/triggers?\(query)")
                #expect(dev.status == 400 && dev.body["error"]?.stringValue?.hasPrefix(named) == true, "\(query): \(dev.body)")
                let admin = try await AdminHarness.admin(c, .get, "/triggers?\(query)")
                #expect(admin.status == 400 && admin.body["error"]?.stringValue?.hasPrefix(named) == true, "\(query): \(admin.body)")
            }
            let limited = try await c.call(.get, "\(Routes.dev)/apps/local/triggers?limit=1000&state=done")
            #expect(limited.status == 200)
        }
    }
}
