import AuthServer
import Foundation
import PostgresTestSupport
import Testing

/// `/healthz` answers while the process runs; `/readyz` only while the database answers too.
@Suite struct HealthTests {
    @Test func readyWhileTheDatabaseAnswers() async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        var config = TestServer.configuration(dev: false)
        config.database = .postgres(try PostgresDatabase(url: cluster.url(database: name) + "&pool=2", key: "database",
                                                         passwordAllowed: false, environment: [:]))
        try await TestServer.run(config) { c in
            let health = try await c.call(.get, "/healthz")
            #expect(health.status == 200 && health.body["status"] == "ok")
            let ready = try await c.call(.get, "/readyz")
            #expect(ready.status == 200 && ready.body["status"] == "ready")

            // The database refuses the server's connections: not ready, still healthy.
            try await cluster.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
            try await cluster.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
            let broken = try await c.call(.get, "/readyz")
            #expect(broken.status == 503 && broken.body["status"] == "unavailable", "\(broken.body)")
            #expect(try await c.call(.get, "/healthz").status == 200)

            try await cluster.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
            var again = 0
            for _ in 0..<100 where again != 200 {
                again = try await c.call(.get, "/readyz").status
                if again != 200 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(again == 200, "ready again once the database answers")
        }
    }
}
