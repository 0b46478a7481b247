// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// Authentication triggers on real `authsh serve` processes: a run the server was killed
/// (SIGKILL) before finishing runs once the server is back, and two instances on one
/// PostgreSQL database run each event once.
@Suite(.serialized, .binary, .timeLimit(.minutes(5))) struct TriggerDurabilityTests {
    static let plugin = """
        local m = {}
        -- LOGIN: fails until `open` was called, then counts the logins of the user.
        function m.countLogin(event)
          if context.values.gated and not context.store.get("open") then error("not yet") end
          local key = "logins:" .. event.user.id
          context.store.set(key, (context.store.get(key) or 0) + 1)
        end
        function m.open() context.store.set("open", true); return true end
        function m.logins(id) return context.store.get("logins:" .. id) or 0 end
        return m
        """

    static func config(gated: Bool) -> String {
        #"""
        {"apps": [{"id": "local", "rateLimits": {"enabled": false}, "values": {"gated": \#(gated)},
                   "triggers": [{"name": "countLogins", "type": "AUTHENTICATION", "function_name": "countLogin",
                                 "config": {"operation_type": "LOGIN", "providers": ["anon-user"]}}]}]}
        """#
    }

    /// A directory with the config and the plugin.
    static func setUp(gated: Bool) throws -> String {
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/plugins", withIntermediateDirectories: true)
        try Binary.write(Self.plugin, to: dir + "/plugins/triggers.lua")
        try Binary.write(Self.config(gated: gated), to: dir + "/config.json")
        return dir
    }

    static func arguments(_ dir: String) -> [String] { ["--dev", "--config", dir + "/config.json", "--plugins", dir + "/plugins"] }

    /// The app's trigger runs, from the dev API.
    static func runs(_ server: JSONHTTP) async throws -> [[String: Any]] {
        let reply = try await server.send(.GET, "/api/dev/v1/apps/local/triggers")
        return try #require(reply.json as? [[String: Any]], "\(reply.text)")
    }

    /// Waits through the dev API until no run is queued; returns how many still are.
    static func wait(_ server: JSONHTTP, seconds: Int = 60) async throws -> Int? {
        let reply = try await server.send(.POST, "/api/dev/v1/apps/local/triggers/wait", json: #"{"timeoutSeconds": \#(seconds)}"#)
        return (reply.json as? [String: Any])?["pending"] as? Int
    }

    @Test func aRunNotFinishedWhenTheServerIsKilledRunsOnceItIsBack() async throws {
        let dir = try Self.setUp(gated: true)
        let data = dir + "/data"
        var first: ServerProcess? = try await ServerProcess(["--data", data] + Self.arguments(dir), examplePlugins: false)
        var server = JSONHTTP(origin: try #require(first?.origin), timeout: .seconds(60))
        let login = try await server.send(.POST, server.app() + "/auth/providers/anon-user/login", json: #"{"provider":"anon-user"}"#)
        #expect(login.status == 200, "\(login.text)")
        let user = try #require(login["user_id"]), token = try #require(login["access_token"])

        // The login is answered; its trigger's first attempt fails ("not yet") and waits for
        // its retry, 5 s later. Open the gate, and kill the server before the retry.
        var attempted = false
        for _ in 0..<1000 where !attempted {
            attempted = try await Self.runs(server).contains { ($0["attempts"] as? Int ?? 0) >= 1 && $0["state"] as? String == "queued" }
            if !attempted { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(attempted, "the run's first attempt did not happen")
        #expect(try await server.call("open", token: token).status == 200)
        let process = try #require(first?.process)
        process.signal(SIGKILL)
        try await process.waitForExit()
        first = nil

        let second = try await ServerProcess(["--data", data] + Self.arguments(dir), examplePlugins: false)
        server = JSONHTTP(origin: second.origin, timeout: .seconds(60))
        #expect(try await Self.wait(server) == 0, "the run did not finish after the restart")
        let runs = try await Self.runs(server)
        #expect(runs.count == 1 && runs.first?["state"] as? String == "done", "\(runs)")
        let count = try await server.send(
            .POST, server.app() + "/functions/call", json: #"{"name":"logins","arguments":[\#(JSONHTTP.quoted(user))]}"#, token: token)
        #expect(count.integer == 1, "the trigger ran once: \(count.text)")
    }
}

/// In `PostgresRestartTests`' suite, which is serialized: two PostgreSQL-backed pairs of
/// servers at once made the restart test's servers slow enough to miss its bounds.
extension PostgresRestartTests {
    @Test(.timeLimit(.minutes(4))) func twoInstancesOnOnePostgreSQLRunEachEventOnce() async throws {
        let cluster = try await PostgresCluster.makePrivate()
        let url = cluster.url(database: try await cluster.makeDatabase())
        let dir = try TriggerDurabilityTests.setUp(gated: false)
        let processes = [
            try await ServerProcess(["--database", url] + TriggerDurabilityTests.arguments(dir), examplePlugins: false),
            try await ServerProcess(["--database", url] + TriggerDurabilityTests.arguments(dir), examplePlugins: false),
        ]
        let servers = processes.map { JSONHTTP(origin: $0.origin, timeout: .seconds(60)) }
        // Logins on both instances, each a new user with one LOGIN run.
        var users: [(id: String, token: String)] = []
        for i in 0..<40 {
            let server = servers[i % 2]
            let login = try await server.send(.POST, server.app() + "/auth/providers/anon-user/login", json: #"{"provider":"anon-user"}"#)
            #expect(login.status == 200, "\(login.text)")
            users.append((try #require(login["user_id"]), try #require(login["access_token"])))
        }
        let pending = (try await TriggerDurabilityTests.wait(servers[0]), try await TriggerDurabilityTests.wait(servers[1]))
        #expect(pending.0 == 0 && pending.1 == 0)
        let runs = try await TriggerDurabilityTests.runs(servers[1])
        #expect(runs.count == 40 && runs.allSatisfy { $0["state"] as? String == "done" && $0["attempts"] as? Int == 1 }, "\(runs.prefix(3))")
        for (i, user) in users.enumerated() {
            let server = servers[i % 2]
            let count = try await server.send(
                .POST, server.app() + "/functions/call", json: #"{"name":"logins","arguments":[\#(JSONHTTP.quoted(user.id))]}"#,
                token: user.token)
            #expect(count.integer == 1, "user \(i): \(count.text)")
        }
    }
}
