// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Foundation
import TestSupport
import GRDB
import Synchronization
import Testing

/// The audit log's writes share commits through SQLite's group commit (the store's one
/// mechanism, ``GroupCommitTests``): events that arrive while a write is under way share the
/// next transaction, and each caller returns only once its events are stored.
@Suite(.timeLimit(.minutes(5))) struct AuditWriterTests {
    static func event(_ i: Int) -> AuditEvent {
        AuditEvent(
            time: 1_700_000_000, appId: "local", event: "login", outcome: "success", userId: "user\(i)",
            provider: "anon-user", address: "127.0.0.1", userAgent: nil, detail: nil)
    }

    @Test func eventsThatArriveDuringAWriteShareTheNext() async throws {
        let directory = try Scratch.directory("auditw")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let writer = AuditWriter(store: store)

        // Another connection holds the write lock: the first batch waits for it (busy timeout),
        // and every caller that comes meanwhile queues behind it. The lock is let go once all
        // 49 wait.
        let other = try DatabaseQueue(path: directory + "/authsh.sqlite")
        let locked = Atomic<Bool>(false), release = Atomic<Bool>(false)
        let holding = Task {
            try await other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.store(true, ordering: .releasing)
                while !release.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.005) }
                try db.execute(sql: "COMMIT")
            }
        }
        func waitUntil(_ condition: () -> Bool) async throws {
            while !condition() { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await waitUntil { locked.load(ordering: .acquiring) }
        let commitsBefore = store.transactionsCommitted
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.write([Self.event(0)]) }
            try await waitUntil { store.meter.inFlight(.write) >= 1 }
            for i in 1..<50 { group.addTask { try await writer.write([Self.event(i)]) } }
            try await waitUntil { store.engine.base.writersWaiting == 49 }
            release.store(true, ordering: .releasing)
            try await group.waitForAll()
        }
        try await holding.value
        let transactions = store.transactionsCommitted - commitsBefore
        #expect(transactions <= 3, "50 callers took \(transactions) transactions (at most 32 a transaction)")
        let stored = try await store.auditEvents(AuditFilter(limit: 100))
        #expect(Set(stored.compactMap(\.userId)) == Set((0..<50).map { "user\($0)" }), "every caller's event, once")
        #expect(stored.count == 50)
    }

    @Test func aFailedWriteReachesEveryCallerOfItsBatch() async throws {
        let directory = try Scratch.directory("auditw")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let other = try DatabaseQueue(path: directory + "/authsh.sqlite")
        try await other.write { try $0.execute(sql: "DROP TABLE audit_events") }
        let writer = AuditWriter(store: store)
        let failures = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<10 {
                group.addTask {
                    do { try await writer.write([Self.event(i)]); return false } catch { return true }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 10)
    }
}
