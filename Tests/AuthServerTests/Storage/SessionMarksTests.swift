// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Logging
import TestSupport
import Testing

/// The last-use marks a store remembers (`SessionMarks`): they only ever skip a write the
/// database would not do either, also when another instance marked the session.
@Suite(.timeLimit(.minutes(2))) struct SessionMarksTests {
    @Test func aFullTableStartsAgainEmpty() {
        let marks = SessionMarks(capacity: 2)
        marks.record("a", at: 10)
        marks.record("a", at: 5)
        #expect(marks.lastMark("a") == 10, "a mark never goes back")
        marks.record("b", at: 20)
        marks.record("c", at: 30)
        #expect(marks.lastMark("a") == nil && marks.lastMark("b") == nil && marks.lastMark("c") == 30)
    }

    /// Two instances on one PostgreSQL database: what one marked, the other learns when it
    /// reads the session, and neither marks it again before it is due.
    @Test func aMarkByAnotherInstanceIsLearnt() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.makeDatabase()
        let logger = Logger(label: "marks")
        let first = try await PostgresStore(configuration: cluster.configuration(database: database), logger: logger)
        let second = try await PostgresStore(configuration: cluster.configuration(database: database), logger: logger)
        defer {
            first.close()
            second.close()
        }
        try await first.insertUser(StoreConformanceTests.user("ann", StoreConformanceTests.identity("a1")))
        try await first.insertSession(StoreConformanceTests.session("s1", user: "ann", createdAt: 10))
        let digest = Array("r-s1".utf8)
        func lastUsed() async throws -> Int64? { try await first.sessionWithUser(id: "s1", identities: false)?.0.lastUsed }

        _ = try await first.refreshSession(id: "s1", digest: digest, now: 100, due: 40)
        #expect(try await lastUsed() == 100 && first.sessionMarks.lastMark("s1") == 100)
        // The second instance marks it later, when due.
        _ = try await second.refreshSession(id: "s1", digest: digest, now: 170, due: 110)
        #expect(try await lastUsed() == 170)
        // The first still thinks 100: at 200 (due 140) it asks the database, which has 170, and
        // learns it without writing.
        _ = try await first.refreshSession(id: "s1", digest: digest, now: 200, due: 140)
        #expect(try await lastUsed() == 170 && first.sessionMarks.lastMark("s1") == 170)
        _ = try await first.refreshSession(id: "s1", digest: digest, now: 240, due: 180)
        #expect(try await lastUsed() == 240)
    }
}
