// SPDX-License-Identifier: Apache-2.0
/// Runs statements on one connection of an engine: in a transaction (``SQLEngine/write(_:_:)``),
/// a read snapshot, or on its own.
package protocol SQLRunner {
    associatedtype Row: SQLRow
    /// Runs `sql` with `arguments` bound in order and calls `row` for each result row.
    func each(_ sql: SQL, _ arguments: [SQLValue], _ row: (Row) throws -> Void) async throws
}

extension SQLRunner {
    /// Every row of `sql`, decoded.
    package func all<T>(_ sql: SQL, _ arguments: [SQLValue], _ decode: (Row) throws -> T) async throws -> [T] {
        var results: [T] = []
        try await each(sql, arguments) { results.append(try decode($0)) }
        return results
    }

    /// The first row of `sql`, decoded, or nil.
    package func first<T>(_ sql: SQL, _ arguments: [SQLValue], _ decode: (Row) throws -> T) async throws -> T? {
        var result: T?
        try await each(sql, arguments) { row in
            if result == nil { result = try decode(row) }
        }
        return result
    }

    /// Runs `sql` for its effect.
    package func run(_ sql: SQL, _ arguments: [SQLValue]) async throws {
        try await each(sql, arguments) { _ in }
    }

    /// How many rows `sql` returns: with `RETURNING 1`, how many it changed.
    package func count(_ sql: SQL, _ arguments: [SQLValue]) async throws -> Int {
        var count = 0
        try await each(sql, arguments) { _ in count += 1 }
        return count
    }
}

/// A database engine of ``SQLStore``: where statements run, and how a failure reads.
///
/// Each entry point names its operation ("read user"): a failure becomes a ``StoreError``
/// naming it and nothing else (no SQL, no bound value), a unique or foreign-key violation a
/// conflict.
package protocol SQLEngine: Sendable {
    associatedtype Runner: SQLRunner
    /// How many connections the engine may hold at once.
    var poolSize: Int { get }
    /// Whether one statement outside a transaction may update rows and read others in one
    /// round trip (PostgreSQL's data-modifying `WITH`, committed with the statement); SQLite
    /// has no such statement, and its reads run on connections that never write.
    static var updatesInReads: Bool { get }
    /// Write transactions committed since the engine opened. On SQLite one may hold several
    /// writes (group commit); on PostgreSQL each write is its own.
    var transactionsCommitted: Int { get }
    /// Runs `body` outside a transaction: each statement sees what was committed before it began.
    func read<T: Sendable>(_ operation: String, _ body: (Runner) async throws -> T) async throws -> T
    /// Runs `body`'s reads on one snapshot (what was committed before its first statement).
    func snapshot<T: Sendable>(_ operation: String, _ body: (Runner) async throws -> T) async throws -> T
    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
    func write<T: Sendable>(_ operation: String, _ body: (Runner) async throws -> T) async throws -> T
    /// Runs `sql`, one writing statement whose result nobody reads (a log's row), and returns
    /// once it is committed. Writes of the moment share the commit: SQLite's group commit, on
    /// PostgreSQL ``PostgresStatementBatches``.
    func append(_ operation: String, _ sql: SQL, _ arguments: [SQLValue]) async throws
    /// Lets its connections go; the engine answers nothing afterwards.
    func close()
}
