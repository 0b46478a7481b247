// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Logging
import PostgresNIO
import TestSupport
import Testing

/// Group commit of the audit log's statements on PostgreSQL (`PostgresStatementBatches`): the
/// events that arrive while one is written share the next transaction, and a statement that
/// PostgreSQL refuses fails only its caller. Another connection holds a lock on the table until
/// every caller waits, so the batch forms whatever the machine's load.
@Suite(.timeLimit(.minutes(3))) struct PostgresStatementBatchesTests {
    static func event(_ i: Int, detail: String? = nil) -> AuditEvent {
        AuditEvent(
            time: 1_700_000_000, appId: "local", event: "login", outcome: "success", userId: "user\(i)",
            provider: "anon-user", address: "127.0.0.1", userAgent: nil, detail: detail)
    }

    /// `count` callers of `store`, each writing `event(i)`, started while the table is locked
    /// and let go once all of them wait; whether each failed.
    static func writeWhileLocked(_ count: Int, store: PostgresStore, cluster: PostgresCluster, database: String) async throws -> [Bool] {
        let lock = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: cluster.socketPath, username: "authsh", password: nil, database: database),
            id: 1, logger: Logger(label: "batches-test"))
        defer { Task { try? await lock.close() } }
        try await lock.query("BEGIN", logger: lock.logger)
        try await lock.query("LOCK TABLE audit_events IN EXCLUSIVE MODE", logger: lock.logger)
        return try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<count {
                group.addTask {
                    do {
                        try await store.insertAuditEvents([Self.event(i, detail: i == 3 ? "refused" : nil)])
                        return (i, false)
                    } catch {
                        return (i, true)
                    }
                }
            }
            while store.meter.inFlight(.write) < count { try await Task.sleep(for: .milliseconds(5)) }
            try await lock.query("COMMIT", logger: lock.logger)
            var failed = [Bool](repeating: false, count: count)
            for try await (i, failure) in group { failed[i] = failure }
            return failed
        }
    }

    @Test func eventsThatArriveDuringAWriteShareTheNextCommit() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.makeDatabase()
        let store = try await PostgresStore(configuration: cluster.configuration(database: database), logger: Logger(label: "batches"))
        defer { store.close() }
        let before = store.transactionsCommitted
        let failed = try await Self.writeWhileLocked(50, store: store, cluster: cluster, database: database)
        #expect(!failed.contains(true))
        let commits = store.transactionsCommitted - before
        // The first caller's statement alone (it waited for the lock), then the 49 others together.
        #expect(commits <= 3, "50 callers took \(commits) commits")
        let stored = try await store.auditEvents(AuditFilter(limit: 100))
        #expect(stored.count == 50 && Set(stored.compactMap(\.userId)).count == 50, "every caller's event, once")
    }

    @Test func aRefusedStatementFailsOnlyItsCaller() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.makeDatabase()
        let store = try await PostgresStore(configuration: cluster.configuration(database: database), logger: Logger(label: "batches"))
        defer { store.close() }
        try await cluster.execute(
            "ALTER TABLE audit_events ADD CONSTRAINT no_refused CHECK (detail IS DISTINCT FROM 'refused')", database: database)
        let failed = try await Self.writeWhileLocked(10, store: store, cluster: cluster, database: database)
        #expect(failed == (0..<10).map { $0 == 3 }, "only the refused event's caller fails")
        let stored = try await store.auditEvents(AuditFilter(limit: 100))
        #expect(stored.count == 9 && Set(stored.compactMap(\.userId)) == Set((0..<10).filter { $0 != 3 }.map { "user\($0)" }))
    }
}
