@testable import AuthServer
import Logging
import PostgresNIO
import PostgresTestSupport
import Synchronization
import Testing

/// `authsh audit --follow` shows every event once, even one whose transaction commits after
/// later ones were read (PostgreSQL, several instances writing).
@Suite struct AuditFollowTests {
    static func event(_ id: Int64) -> AuditEvent {
        var e = AuditEvent(time: 1_800_000_000, appId: "local", event: "login", outcome: "success")
        e.id = id
        return e
    }

    @Test func aLateIdIsShownWhenItComesAndGivenUpAfterTheGrace() {
        let start = ContinuousClock.now
        var follower = AuditFollower(after: 10, grace: .seconds(10))
        // 11 and 13 come; 12 is missing: settled stays at 11.
        #expect(follower.take([Self.event(11), Self.event(13)], now: start).map(\.id) == [11, 13])
        #expect(follower.settled == 11)
        // Read again from 11: 13 is not shown twice; 12 commits late and is shown.
        #expect(follower.take([Self.event(13)], now: start + .seconds(1)).isEmpty)
        #expect(follower.take([Self.event(12), Self.event(13), Self.event(14)], now: start + .seconds(2)).map(\.id) == [12, 14])
        #expect(follower.settled == 14)
        // 15 never comes (rolled back): given up once missing for the grace, not before.
        #expect(follower.take([Self.event(16)], now: start + .seconds(3)).map(\.id) == [16])
        #expect(follower.take([Self.event(16)], now: start + .seconds(12)).isEmpty)
        #expect(follower.settled == 14)
        #expect(follower.take([Self.event(16)], now: start + .seconds(13)).isEmpty)
        #expect(follower.settled == 16)
        // Below settled: never again.
        #expect(follower.take([Self.event(15)], now: start + .seconds(14)).isEmpty)
    }

    @Test func aHugeJumpIsNotWaitedForIdByIdForever() {
        let start = ContinuousClock.now
        var follower = AuditFollower(after: 0, grace: .seconds(10))
        let far = AuditFollower.missingAtMost * 3
        #expect(follower.take([Self.event(far)], now: start).map(\.id) == [far])
        #expect(follower.settled == far - AuditFollower.missingAtMost)
        #expect(follower.take([Self.event(far)], now: start + .seconds(11)).isEmpty)
        #expect(follower.settled == far)
    }

    /// A real PostgreSQL database: an event written in a transaction that stays open while a
    /// later one commits and is shown, then commits: the follower shows it.
    @Test func anEventCommittedAfterALaterOneIsShownOnPostgreSQL() async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        var config = ServerConfiguration()
        config.database = .postgres(try PostgresDatabase(url: cluster.url(database: name), key: "database", passwordAllowed: false,
                                                         environment: [:]))
        final class Shown: Sendable { let details = Mutex<[String]>([]) }
        let box = Shown(), configuration = config
        let follower = Task {
            try await followAuditLog(configuration, filter: AuditFilter(event: "login"), interval: .milliseconds(100)) { events in
                box.details.withLock { $0 += events.map { $0.detail ?? "" } }
            }
        }
        defer { follower.cancel() }
        func waitFor(_ detail: String) async throws -> Bool {
            for _ in 0..<100 {
                if box.details.withLock({ $0.contains(detail) }) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        let connection = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: cluster.socketPath, username: "authsh", password: nil, database: name),
            id: 1, logger: Logger(label: "audit-follow-test"))
        defer { Task { try? await connection.close() } }
        // The follower made the schema; wait for it.
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await connection.query("SELECT 1 FROM audit_events LIMIT 1", logger: connection.logger)) != nil
            if !ready { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(ready)
        try await connection.query("BEGIN", logger: connection.logger)
        try await connection.query("""
            INSERT INTO audit_events (time, app_id, event, outcome, detail) VALUES (1800000000, 'local', 'login', 'success', 'slow')
            """, logger: connection.logger)
        try await cluster.execute("""
            INSERT INTO audit_events (time, app_id, event, outcome, detail) VALUES (1800000001, 'local', 'login', 'success', 'fast');
            INSERT INTO audit_events (time, app_id, event, outcome, detail) VALUES (1800000001, 'local', 'logout', 'success', 'skipped')
            """, database: name)
        #expect(try await waitFor("fast"), "\(box.details.withLock { $0 })")
        try await connection.query("COMMIT", logger: connection.logger)
        #expect(try await waitFor("slow"), "\(box.details.withLock { $0 })")
        try await Task.sleep(for: .milliseconds(300))
        #expect(box.details.withLock { $0 } == ["fast", "slow"], "each once, the filter applied")
    }
}
