// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import TestSupport
import Testing

/// The two engines' schemas, kept by hand as two lists of migrations, are one schema: after
/// every migration SQLite and PostgreSQL have the same tables, columns and indexes (each
/// engine's own bookkeeping table, and the indexes that back a key or constraint, aside).
@Suite(.timeLimit(.minutes(2))) struct SchemaParityTests {
    @Test func sqliteAndPostgresHaveTheSameTablesColumnsAndIndexes() async throws {
        let sqlite = try SQLiteConnection(path: ":memory:", readOnly: false)
        try SQLiteSchema.migrate(sqlite)
        let lite = try SQLiteSchema.shape(of: sqlite).subtracting(["table grdb_migrations", "column grdb_migrations.identifier"])

        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.makeDatabase()
        _ = try await PostgresStore(configuration: cluster.configuration(database: database), logger: .init(label: "parity"))
        let tables = try await cluster.query(
            "SELECT 'table ' || table_name FROM information_schema.tables WHERE table_schema = 'public'", database: database)
        let columns = try await cluster.query(
            "SELECT 'column ' || table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = 'public'",
            database: database)
        let indexes = try await cluster.query(
            """
            SELECT 'index ' || indexname FROM pg_indexes i WHERE schemaname = 'public'
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
            """, database: database)
        let postgres = Set(tables + columns + indexes).subtracting([
            "table authsh_migrations", "column authsh_migrations.version", "column authsh_migrations.applied_at",
        ])
        #expect(lite.count > 100, "\(lite.count) tables, columns and indexes")
        #expect(lite.subtracting(postgres).sorted() == [], "on SQLite only")
        #expect(postgres.subtracting(lite).sorted() == [], "on PostgreSQL only")
    }
}
