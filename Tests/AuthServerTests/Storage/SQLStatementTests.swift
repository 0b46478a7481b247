// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Testing

/// A store statement is written once for both engines: `?` markers are numbered for
/// PostgreSQL (outside quotes only), rows are locked only where PostgreSQL needs it, and a
/// statement keeps one prepared-statement slot.
@Suite(.timeLimit(.minutes(5))) struct SQLStatementTests {
    @Test func markersAreNumberedOutsideQuotes() {
        let sql = SQL("SELECT a FROM t WHERE b = ? AND c = '?' AND \"d?\" = ? AND e IN (?, ?)")
        #expect(sql.postgres == "SELECT a FROM t WHERE b = $1 AND c = '?' AND \"d?\" = $2 AND e IN ($3, $4)")
        #expect(sql.text.contains("b = ? AND"))
        let locking = SQL("SELECT id FROM users WHERE id = ?", lock: .wait)
        #expect(locking.text == "SELECT id FROM users WHERE id = ?" && locking.postgres == "SELECT id FROM users WHERE id = $1 FOR UPDATE")
        let worker = SQL("SELECT id FROM q LIMIT ?", lock: .skipLocked)
        #expect(worker.text == "SELECT id FROM q LIMIT ?" && worker.postgres == "SELECT id FROM q LIMIT $1 FOR UPDATE SKIP LOCKED")
    }

    @Test func eachStatementKeepsOneSlot() throws {
        let first = SQL("SELECT 1 AS one WHERE ? = ?"), second = SQL("SELECT 2 AS two")
        let slot = try #require(PostgresStatements.slot(for: first))
        #expect(PostgresStatements.slot(for: first).map(ObjectIdentifier.init) == ObjectIdentifier(slot))
        #expect(PostgresStatements.slot(for: second).map(ObjectIdentifier.init) != ObjectIdentifier(slot))
        #expect(PostgresStatements.sql(at: slot.index) == "SELECT 1 AS one WHERE $1 = $2")
        #expect(PostgresStatements.slot(for: SQL("CREATE TABLE x (y TEXT)", prepared: false)) == nil)
    }
}
