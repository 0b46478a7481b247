// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Logging
import PostgresNIO
import TestSupport
import Testing

/// A server's PostgreSQL pool keeps one connection open, opens more as requests need them and
/// closes those once idle for 10 s; a command's opens them as it needs them. (A minimum of 1:
/// postgres-nio's pool trapped on a PostgreSQL restart with a minimum of 3 or more,
/// `PostgresRestartTests`, and strands requests with none. A short idle timeout: the pool keeps
/// each timer's task alive until its time is up, even when cancelled, so a 60 s one made memory
/// grow with the request rate; `scripts/bench server --postgres` shows the memory.)
@Suite(.timeLimit(.minutes(5))) struct PostgresPoolTests {
    @Test func thePoolOpensConnectionsOnDemandAndClosesIdleOnes() async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        var config = ServerConfiguration()
        config.database = .postgres(
            try PostgresDatabase(
                url: cluster.url(database: name) + "&pool=3", key: "database",
                passwordAllowed: false, environment: [:]))
        let store = try #require(try await openStore(config, serving: true) as? PostgresStore)
        defer { store.close() }
        let observer = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: cluster.socketPath, username: "authsh", password: nil, database: "postgres"),
            id: 1, logger: Logger(label: "pool-test"))
        defer { Task { try? await observer.close() } }
        func count(_ condition: String) async throws -> Int {
            let rows = try await observer.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT count(*)::int FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid() AND \(condition)
                        """), logger: observer.logger)
            var n = 0
            for try await row in rows { n = try row.decode(Int.self) }
            return n
        }
        // One at once; three while three requests need them at the same time; back to one
        // once the others have been idle for 10 s.
        func waitFor(_ n: Int, seconds: Int) async throws -> Int {
            var open = -1
            for _ in 0..<(seconds * 10) where open != n {
                open = try await count("true")
                if open != n { try await Task.sleep(for: .milliseconds(100)) }
            }
            return open
        }
        #expect(try await waitFor(1, seconds: 6) == 1)
        // Three queries at once, each holding its connection until the test has counted.
        let pool = store.engine.base.client
        let held = try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { _ = try await pool.query("SELECT pg_sleep(2)").collect() } }
            let seen = try await waitFor(3, seconds: 20)
            try await group.waitForAll()
            return seen
        }
        #expect(held == 3)
        let start = ContinuousClock.now
        #expect(try await waitFor(1, seconds: 60) == 1, "idle connections were never closed")
        #expect(start.duration(to: .now) >= PostgresDatabase.idleTimeout - .seconds(1), "closed before it was idle for long")
        // The one left runs its keep-alive when idle.
        var alive = 0
        for _ in 0..<100 where alive == 0 {
            alive = try await count("query = 'SELECT 1;'")
            if alive == 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(alive == 1)
        // A command (`authsh audit`) holds only what it used.
        store.close()
        let command = try #require(try await openStore(config) as? PostgresStore)
        defer { command.close() }
        _ = try await command.auditEvents(AuditFilter(limit: 1))
        var left = 3
        // The closed store's connections end as PostgreSQL sees their sockets close: a bound,
        // not a guess at how soon (a busy machine takes seconds).
        for _ in 0..<300 where left > 1 {
            left = try await count("true")
            if left > 1 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(left == 1)
    }
}
