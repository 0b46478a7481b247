// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Foundation
import TestSupport
import GRDB
import Testing

/// `/healthz` answers while the process runs; `/readyz` only while the database answers too.
@Suite(.timeLimit(.minutes(5))) struct HealthTests {
    @Test func readyWhileTheDatabaseAnswers() async throws {
        let directory = Scratch.path("health")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(TestServer.configuration(database: .directory(directory), dev: false)) { c in
            let health = try await c.call(.get, "/healthz")
            #expect(health.status == 200 && health.body["status"] == "ok")
            let ready = try await c.call(.get, "/readyz")
            #expect(ready.status == 200 && ready.body["status"] == "ready")

            // Its schema broken by someone else: not ready, still healthy.
            let other = try DatabaseQueue(path: directory + "/authsh.sqlite")
            try await other.write { try $0.execute(sql: "DROP TABLE signing_keys") }
            let broken = try await c.call(.get, "/readyz")
            #expect(broken.status == 503 && broken.body["status"] == "unavailable", "\(broken.body)")
            #expect(try await c.call(.get, "/healthz").status == 200)
        }
    }
}
