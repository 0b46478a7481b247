// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Logging
import PostgresNIO
import TestSupport
import Synchronization
import Testing

/// `authsh audit --follow` shows every event once, even one whose transaction commits after
/// later ones were read (PostgreSQL, several instances writing).
@Suite(.timeLimit(.minutes(5))) struct AuditFollowTests {
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

    @Test func whatTheStartWindowHoldsIsTakenUnshownAndItsGapsAreWaitedFor() {
        let start = ContinuousClock.now
        var follower = AuditFollower(after: 0, grace: .seconds(10))
        // At the start, ids 1, 2 and 4 are there (shown by the first page, or filtered out); 3 is
        // still in an open transaction.
        _ = follower.take([Self.event(1), Self.event(2), Self.event(4)], now: start)
        #expect(follower.settled == 2)
        #expect(follower.take([Self.event(3), Self.event(4), Self.event(5)], now: start + .seconds(1)).map(\.id) == [3, 5])
        #expect(follower.settled == 5)
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
    /// later one commits and is shown, then commits: the follower shows it, whether the
    /// transaction began while the follower ran or before it started.
    @Test(arguments: [false, true])
    func anEventCommittedAfterALaterOneIsShownOnPostgreSQL(openBeforeTheStart: Bool) async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        var config = ServerConfiguration()
        config.database = .postgres(
            try PostgresDatabase(
                url: cluster.url(database: name), key: "database", passwordAllowed: false,
                environment: [:]))
        try await openStore(config).close()  // the schema
        final class Shown: Sendable { let details = Mutex<[String]>([]) }
        let box = Shown(), configuration = config
        func startFollowing() -> Task<Void, any Error> {
            Task {
                try await followAuditLog(configuration, filter: AuditFilter(event: "login"), interval: .milliseconds(100)) { events in
                    box.details.withLock { $0 += events.map { $0.detail ?? "" } }
                }
            }
        }
        func waitFor(_ detail: String) async throws -> Bool {
            for _ in 0..<100 {
                if box.details.withLock({ $0.contains(detail) }) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        func insert(_ detail: String, event: String = "login") -> String {
            "INSERT INTO audit_events (time, app_id, event, outcome, detail) VALUES (1800000000, 'local', '\(event)', 'success', '\(detail)');"
        }
        let connection = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: cluster.socketPath, username: "authsh", password: nil, database: name),
            id: 1, logger: Logger(label: "audit-follow-test"))
        defer { Task { try? await connection.close() } }
        var follower: Task<Void, any Error>?
        defer { follower?.cancel() }
        var expected = ["fast", "later", "slow", "last"]
        if !openBeforeTheStart {
            // Started once it shows an event recorded now.
            follower = startFollowing()
            try await cluster.execute(insert("marker"), database: name)
            #expect(try await waitFor("marker"), "\(box.details.withLock { $0 })")
            expected.insert("marker", at: 0)
        }
        try await connection.query("BEGIN", logger: connection.logger)
        try await connection.query(PostgresQuery(unsafeSQL: insert("slow")), logger: connection.logger)
        try await cluster.execute(insert("fast") + insert("skipped", event: "logout"), database: name)
        if openBeforeTheStart { follower = startFollowing() }  // its first page shows "fast"
        #expect(try await waitFor("fast"), "\(box.details.withLock { $0 })")
        // The follower has read past the open transaction's id once it shows a later event.
        try await cluster.execute(insert("later"), database: name)
        #expect(try await waitFor("later"), "\(box.details.withLock { $0 })")
        try await connection.query("COMMIT", logger: connection.logger)
        #expect(try await waitFor("slow"), "\(box.details.withLock { $0 })")
        // Shown in order: once the last event is, nothing before it comes again.
        try await cluster.execute(insert("last"), database: name)
        #expect(try await waitFor("last"), "\(box.details.withLock { $0 })")
        #expect(box.details.withLock { $0 } == expected, "each once, the filter applied")
    }
}
