// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import TestSupport
import Testing

/// Every statement of the store runs as a named prepared statement on PostgreSQL, however many
/// there are: slots used to be 128 fixed types, and statement 129 and later ran unprepared
/// (parsed and planned each time) without a word.
@Suite(.timeLimit(.minutes(5))) struct PostgresStatementsTests {
    @Test func slotTypesSpellTheirIndexForAnyIndex() {
        for index in [0, 1, 2, 3, 127, 128, 129, 1000, 123_456] {
            #expect(PostgresStatements.slotType(index).index == index)
        }
        let names = Set((0..<2000).map { "\(PostgresStatements.slotType($0))" })
        #expect(names.count == 2000)
    }

    @Test func twoHundredStatementsAreAllPreparedOnOneConnection() async throws {
        let store = try await PostgresCluster.shared().makeStore()
        defer { store.close() }
        let statements = (0..<200).map { SQL("SELECT CAST(\($0) AS BIGINT) + ? AS n") }
        let prepared = SQL("SELECT count(*) AS c FROM pg_prepared_statements WHERE name LIKE 'authsh\\_%'", prepared: false)
        let count = try await store.engine.base.read("test") { runner in
            for (i, statement) in statements.enumerated() {
                var got: Int64?
                try await runner.each(statement, [.integer(1)]) { got = try $0.int64("n") }
                #expect(got == Int64(i + 1))
            }
            var count: Int64 = 0
            try await runner.each(prepared, []) { count = try $0.int64("c") }
            return count
        }
        #expect(count >= 200, "\(count) statements prepared on the connection")
    }
}
