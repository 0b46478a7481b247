// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOPosix
import TestSupport
import Synchronization
import Testing

/// A PostgreSQL restart under load, as a failover or a crash makes one: two `authsh serve`
/// processes on a private cluster, clients registering and logging in on both, PostgreSQL
/// stopped with `-m immediate` and started again. Both processes live through it, answer 503
/// while the database is away, serve again once it is back, and lose nothing they acknowledged.
@Suite(.serialized, .binary, .timeLimit(.minutes(5))) struct PostgresRestartTests {
    final class Load: Sendable {
        let acknowledged = Mutex<[(email: String, userId: String)]>([])
        /// Statuses of requests that failed while the database was away (0: no answer at all).
        let failures = Mutex<[Int]>([])
        /// What went wrong with the requests that got no answer.
        let errors = Mutex<[String]>([])
        let recording = Atomic<Bool>(false)
        let running = Atomic<Bool>(true)
        var count: Int { acknowledged.withLock { $0.count } }
    }

    static let config = #"""
        {"apps": [{"id": "local", "rateLimits": {"enabled": false},
                   "providers": {"anon-user": {}, "local-userpass": {"autoConfirm": true}}}]}
        """#

    /// Polls `condition` every 50 ms until it holds or `limit` passes; the time it took, or nil.
    static func waitFor(_ limit: Duration, _ condition: () async -> Bool) async -> Duration? {
        let start = ContinuousClock.now
        while start.duration(to: .now) < limit {
            if await condition() { return start.duration(to: .now) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    static let executor = ThreadExecutor(threads: 2)
    static let probe = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup(numberOfThreads: 1))

    @Test(.timeLimit(.minutes(4)))
    func bothInstancesLiveThroughAnImmediateRestartAndLoseNothingAcknowledged() async throws {
        let cluster = try await PostgresCluster.makePrivate()
        let url = cluster.url(database: try await cluster.makeDatabase())
        let dir = try Binary.temporaryDirectory()
        try Binary.write(Self.config, to: dir + "/config.json")
        let processes = [
            try await ServerProcess(["--database", url, "--config", dir + "/config.json"], examplePlugins: false),
            try await ServerProcess(["--database", url, "--config", dir + "/config.json"], examplePlugins: false),
        ]
        // Answers may come late on a loaded machine: the test is about what they are.
        let servers = processes.map { JSONHTTP(origin: $0.origin, timeout: .seconds(60)) }
        // `/readyz` on a client of its own: the load's requests wait for the database, up to
        // 15 s each while it is away, and may hold every connection of theirs.
        let probes = processes.map { JSONHTTP(origin: $0.origin, timeout: .seconds(60), client: Self.probe) }
        let load = Load()

        // The load and the waits on threads of their own: beside the in-process suites, which
        // may hold Swift's two cooperative threads with blocking work for seconds, the load
        // stalled and no failure was counted while PostgreSQL was down.
        try await withTaskExecutorPreference(Self.executor) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        var n = 0
                        while load.running.load(ordering: .relaxed) {
                            n += 1
                            let email = "c\(client)-\(n)@example.com", server = servers[(client + n) % 2]
                            let status: Int
                            do {
                                let registered = try await server.send(
                                    .POST, server.app() + "/auth/providers/local-userpass/register",
                                    json: #"{"email":"\#(email)","password":"password1"}"#)
                                if registered.status == 201 {
                                    let login = try await server.emailLogin(email, "password1")
                                    if login.status == 200, let id = login["user_id"] {
                                        load.acknowledged.withLock { $0.append((email, id)) }
                                        continue
                                    }
                                    status = login.status
                                } else {
                                    status = registered.status
                                }
                            } catch {
                                status = 0
                                if load.recording.load(ordering: .relaxed) { load.errors.withLock { $0.append("\(error)") } }
                            }
                            if load.recording.load(ordering: .relaxed) { load.failures.withLock { $0.append(status) } }
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
                defer { load.running.store(false, ordering: .relaxed) }
                #expect(await Self.waitFor(.seconds(60)) { load.count >= 40 } != nil, "the load never got going")

                load.recording.store(true, ordering: .relaxed)
                try await cluster.stopImmediately()
                // While PostgreSQL is away, requests fail as 503 (never a 500, never a dead process).
                // A request fails after the database's deadline (5 s) for each operation it makes,
                // 10 to 15 s; on a busy machine, later.
                let failed = await Self.waitFor(.seconds(90)) { load.failures.withLock { $0.count } >= 8 }
                // What the servers logged, to see where a request waited when none failed.
                let logs = processes.map { String(((try? String(contentsOfFile: $0.directory + "/err", encoding: .utf8)) ?? "").suffix(3000)) }
                #expect(failed != nil, "no request failed while PostgreSQL was down; the servers' logs:\n\(logs.joined(separator: "\n---\n"))")
                for probe in probes {
                    #expect(try await probe.send(.GET, "/readyz").status == 503)
                }
                try await cluster.start()
                let before = load.count
                let recovery = await Self.waitFor(.seconds(30)) {
                    var ready = true
                    for probe in probes where (try? await probe.send(.GET, "/readyz"))?.status != 200 { ready = false }
                    return ready && load.count >= before + 20
                }
                load.recording.store(false, ordering: .relaxed)
                #expect(recovery != nil, "the servers did not serve again within 30 s of PostgreSQL's return")
                print(
                    "PostgresRestartTests: \(before) logins acknowledged before the restart; both servers ready and 20 more "
                        + "acknowledged \(recovery.map { "\($0)" } ?? "never") after PostgreSQL was back")
                load.running.store(false, ordering: .relaxed)
                try await group.waitForAll()
            }
        }
        for process in processes {
            #expect(
                process.process.isRunning,
                "a server died: \((try? String(contentsOfFile: process.directory + "/err", encoding: .utf8))?.suffix(2000) ?? "")")
        }
        let failures = load.failures.withLock { $0 }
        #expect(
            !failures.isEmpty && failures.allSatisfy { $0 == 503 },
            "failed requests: \(Dictionary(grouping: failures, by: { $0 }).mapValues(\.count)) \(load.errors.withLock { $0 }.prefix(3))")
        // Every login that was answered logs in again, as the same user, on either server.
        let acknowledged = load.acknowledged.withLock { $0 }
        for (i, ack) in acknowledged.enumerated() {
            let again = try await servers[i % 2].emailLogin(ack.email, "password1")
            guard again.status == 200 && again["user_id"] == ack.userId else {
                Issue.record("\(ack.email), acknowledged, does not log in as itself: \(again.status) \(again.text)")
                break
            }
        }
    }
}
