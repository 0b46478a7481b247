@testable import AuthServer
import Logging
import PostgresNIO
import PostgresTestSupport
import Testing

/// A server's PostgreSQL pool keeps all its connections and runs a keep-alive after 5 s of
/// idleness; a command's opens them as it needs them. (postgres-nio's pool keeps each of its timers' tasks alive until the timer's time
/// is up, even when the timer is cancelled: with idle timeouts of 60 s and keep-alives after
/// 30 s, memory grew with the request rate. `scripts/bench server --postgres` shows the memory.)
@Suite struct PostgresPoolTests {
    @Test func thePoolKeepsItsConnectionsAndKeepsThemAlive() async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        var config = ServerConfiguration()
        config.database = .postgres(try PostgresDatabase(url: cluster.url(database: name) + "&pool=3", key: "database",
                                                         passwordAllowed: false, environment: [:]))
        let store = try #require(try await openStore(config, serving: true) as? PostgresStore)
        defer { store.close() }
        let observer = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: cluster.socketPath, username: "authsh", password: nil, database: "postgres"),
            id: 1, logger: Logger(label: "pool-test"))
        defer { Task { try? await observer.close() } }
        func count(_ condition: String) async throws -> Int {
            let rows = try await observer.query(PostgresQuery(unsafeSQL: """
                SELECT count(*)::int FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid() AND \(condition)
                """), logger: observer.logger)
            var n = 0
            for try await row in rows { n = try row.decode(Int.self) }
            return n
        }
        // All three connections, though the store has needed one at most.
        var open = 0
        for _ in 0..<60 where open < 3 {
            open = try await count("true")
            if open < 3 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(open == 3)
        // Idle for longer than the keep-alive: each has run it.
        try await Task.sleep(for: PostgresDatabase.keepAlive + .seconds(2))
        #expect(try await count("query = 'SELECT 1;'") == 3)
        // A command (`authsh audit`) holds only what it used.
        store.close()
        let command = try #require(try await openStore(config) as? PostgresStore)
        defer { command.close() }
        _ = try await command.auditEvents(AuditFilter(limit: 1))
        var left = 3
        for _ in 0..<60 where left > 1 {
            left = try await count("true")
            if left > 1 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(left == 1)
    }
}
