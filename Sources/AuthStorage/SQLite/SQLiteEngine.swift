// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDBSQLite

/// The SQLite engine of ``SQLStore``: a file in WAL mode, or an in-memory database.
///
/// Writes run one at a time on one read-write connection, in turn (an ``AsyncLock`` held by the
/// writing task, so a write's statements are never interleaved with another's), with group
/// commit (``GroupCommit``): writes that queue while one runs share its transaction, each in a
/// savepoint of its own, and none returns before that transaction has committed. Reads of a
/// file run on pooled read-only connections and never wait for a write
/// (WAL), so they see only what was committed. An in-memory database has one connection, which
/// reads take the writer's turn for: there every write commits alone, so that a read never sees
/// another write's uncommitted statements.
///
/// Writes run on threads of their own (``SQLiteThreads``), never on Swift's cooperative threads:
/// a write that must wait for the disk, a checkpoint or another process's lock on the same file
/// (an `authsh` run and an `authsh serve` sharing `--data`, for at most the busy timeout, 5 s)
/// blocks one of those. Reads stay on the calling task's thread: in WAL mode they wait for no
/// lock, and the hop to another thread and back cost a refresh a third of its speed
/// (`scripts/bench server`, docs/benchmarks.md).
package final class SQLiteEngine: SQLEngine {
    private let writer: SQLiteConnection
    /// The writer's turn, and its group commit.
    private let commits: GroupCommit
    private var writeLock: AsyncLock { commits.turn }
    /// Read-only connections of a file (nil for an in-memory database).
    private let reads: SQLiteReadPool?
    package let poolSize: Int
    package static let updatesInReads = false
    /// Says the file is in use while the engine lives (``DatabaseUseLock``).
    private let inUse: DatabaseUseLock?

    /// The most writes one transaction of a file holds.
    package static let batchLimit = 32

    /// Opens (creating and migrating) the database.
    /// - Parameter path: a file path, or nil for an in-memory database.
    package init(path: String?) throws {
        commits = GroupCommit(limit: path == nil ? 1 : Self.batchLimit)
        do {
            let writer = try Self.retryingWhileLocked {
                let connection = try SQLiteConnection(path: path ?? ":memory:", readOnly: false)
                if connection.isReadOnly {
                    throw SQLiteConnection.Failure(
                        code: SQLITE_READONLY, message: "it can only be read (a read-only file system, or no write permission)")
                }
                try connection.execute("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL")
                if path != nil { try connection.execute("PRAGMA journal_mode = WAL") }
                try SQLiteSchema.migrate(connection)
                return connection
            }
            self.writer = writer
        } catch let failure as SQLiteConnection.Failure {
            // SQLite's message ("file is not a database", "unable to open database file")
            // names no bound value.
            throw StoreError.unavailable("open \(path ?? "database"): \(failure.message)")
        }
        inUse = path.flatMap { DatabaseUseLock(sharedOn: $0) }
        let readers = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
        reads = path.map { SQLiteReadPool(path: $0, capacity: readers) }
        // Readers beyond the pool's capacity open and close as a burst needs them.
        poolSize = path == nil ? 1 : readers + 1
    }

    /// Transactions committed and the writes they held, since the engine opened.
    package var committed: GroupCommit.Tally { commits.committed }

    package var transactionsCommitted: Int { commits.committed.commits }

    /// How many writes wait for the writer's turn.
    package var writersWaiting: Int { commits.turn.waiterCount }

    /// Nothing to do: SQLite's connections close with the engine (the last one checkpoints
    /// the write-ahead log).
    package func close() {}

    /// Runs `body` again while another process holds the lock it needs, for up to 10 s.
    /// Switching a new file to WAL needs an exclusive lock and SQLite does not wait for it
    /// (busy handlers are not called there): two processes opening one new database at once
    /// (two `authsh` runs on a fresh `--data`) would otherwise fail with "database is locked".
    private static func retryingWhileLocked<T>(_ body: () throws -> T) throws -> T {
        var attempts = 0
        while true {
            do {
                return try body()
            } catch let failure as SQLiteConnection.Failure where failure.isBusy && attempts < 200 {
                attempts += 1
                usleep(50_000)
            }
        }
    }

    package func read<T: Sendable>(_ operation: String, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        do {
            if let reads { return try await reads.withConnection(body) }
            return try await writeLock.withLock { try await body(writer) }
        } catch {
            throw Self.translate(error, operation)
        }
    }

    package func snapshot<T: Sendable>(_ operation: String, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        do {
            if let reads { return try await reads.withConnection { c in try await c.transaction(write: false) { try await body(c) } } }
            return try await writeLock.withLock { try await body(writer) }
        } catch {
            throw Self.translate(error, operation)
        }
    }

    package func write<T: Sendable>(_ operation: String, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        do {
            return try await withTaskExecutorPreference(SQLiteThreads.shared) { try await commits.write(on: writer, body) }
        } catch {
            throw Self.translate(error, operation)
        }
    }

    package func append(_ operation: String, _ sql: SQL, _ arguments: [SQLValue]) async throws {
        try await write(operation) { try await $0.run(sql, arguments) }
    }

    /// A failure as the routes understand it: a constraint is a conflict, anything else the
    /// database being unavailable. Neither keeps the SQL or a bound value.
    package static func translate(_ error: any Error, _ operation: String) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let failure as SQLiteConnection.Failure where failure.isConstraint: .conflict(operation)
        default: .unavailable(operation)
        }
    }
}

/// The SQLite store (the embedded default).
package typealias SQLiteStore = SQLStore<SQLiteEngine>

extension SQLStore where Engine == SQLiteEngine {
    /// Opens (creating and migrating) a SQLite database.
    /// - Parameter path: a file path, or nil for an in-memory database.
    package convenience init(path: String?) throws {
        self.init(engine: try SQLiteEngine(path: path))
    }
}
