import Glibc
import GRDBSQLite

/// A consistent copy of a live SQLite database, with SQLite's online backup API: the copy is
/// the database as one read transaction saw it, made while the server goes on serving and
/// writing (write-ahead logging lets a reader and the writer run together).
public enum SQLiteBackup {
    /// What a backup made.
    public struct Copy: Sendable {
        /// The database's pages and their size.
        public let pages: Int
        public let bytes: Int
    }

    /// Why a backup was not made (nothing is left at the destination then).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Copies the database at `source` to `destination`, a new file readable by its owner only.
    /// The copy is written beside it under a temporary name, checked (`quick_check`), flushed
    /// to disk and only then given its name; an existing `destination` is never overwritten.
    public static func copy(from source: String, to destination: String) throws(Failure) -> Copy {
        guard access(source, F_OK) == 0 else { throw Failure(description: "no database at \(source)") }
        guard access(destination, F_OK) != 0 else { throw Failure(description: "\(destination) exists: name a new file") }
        let partial = destination + ".partial-\(getpid())"
        unlink(partial)
        do {
            let copy = try backup(source, into: partial)
            try link(partial, destination)
            unlink(partial)
            return copy
        } catch {
            unlink(partial)
            throw error
        }
    }

    /// Puts the backup `file` in place of the database at `destination` (made, 0600, when
    /// missing), refusing while a server or command has that database open
    /// (``DatabaseUseLock``), and a `file` that is no sound authsh database. The copy goes
    /// through SQLite's backup API into the destination, so a failure leaves it as it was.
    public static func restore(from file: String, to destination: String) throws(Failure) -> Copy {
        guard access(file, R_OK) == 0 else { throw Failure(description: "cannot read \(file): \(String(cString: strerror(errno)))") }
        let from = try open(file, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        try check(from, file)
        guard (try? single(from, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'users'")) == 1 else {
            throw Failure(description: "\(file) is no authsh database (it has no users table)")
        }
        guard let lock = DatabaseUseLock.exclusive(destination) else {
            if errno == EWOULDBLOCK {
                throw Failure(description: "\(destination) is in use (a server, or an authsh command, has it open): stop it first")
            }
            throw Failure(description: "cannot open \(destination): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(lock) }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(to) }
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
            throw Failure(description: "cannot start the restore: \(String(cString: sqlite3_errmsg(to)))")
        }
        let status = sqlite3_backup_step(backup, -1)
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw Failure(description: "the restore failed: \(String(cString: sqlite3_errmsg(to)))")
        }
        let pageSize = Int(try single(to, "PRAGMA page_size"))
        return Copy(pages: pages, bytes: pages * pageSize)
    }

    private static func open(_ path: String, flags: Int32) throws(Failure) -> OpaquePointer {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open it"
            sqlite3_close_v2(db)
            throw Failure(description: "\(path): \(message)")
        }
        sqlite3_busy_timeout(db, 10_000)
        return db
    }

    private static func backup(_ source: String, into path: String) throws(Failure) -> Copy {
        // Made 0600 before SQLite writes a byte: the copy holds password hashes and keys.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
        // Read-write, not read-only: a reader of a database in WAL mode must be able to use its
        // shared-memory index; nothing is written to the source.
        let from = try open(source, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(from) }
        let to = try open(path, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(to) }
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
            throw Failure(description: "cannot start the backup: \(String(cString: sqlite3_errmsg(to)))")
        }
        // Every page in one step: one read transaction on the source, so one consistent state.
        var status = sqlite3_backup_step(backup, -1)
        while status == SQLITE_BUSY || status == SQLITE_LOCKED {
            usleep(10_000)
            status = sqlite3_backup_step(backup, -1)
        }
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw Failure(description: "the backup failed: \(String(cString: sqlite3_errmsg(to)))")
        }
        try check(to, path)
        // A file that stands alone: no write-ahead log or index beside it.
        guard sqlite3_exec(to, "PRAGMA journal_mode = DELETE", nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "cannot finish \(path): \(String(cString: sqlite3_errmsg(to)))")
        }
        let pageSize = Int(try single(to, "PRAGMA page_size"))
        // On disk before it gets its name.
        let written = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard written >= 0, fsync(written) == 0 else {
            if written >= 0 { close(written) }
            throw Failure(description: "cannot flush \(path): \(String(cString: strerror(errno)))")
        }
        close(written)
        return Copy(pages: pages, bytes: pages * pageSize)
    }

    private static func check(_ db: OpaquePointer, _ path: String) throws(Failure) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "cannot check \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0), String(cString: text) == "ok" else {
            throw Failure(description: "the copy failed its check: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private static func single(_ db: OpaquePointer, _ sql: String) throws(Failure) -> Int64 {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
        return sqlite3_column_int64(statement, 0)
    }

    private static func link(_ from: String, _ to: String) throws(Failure) {
        // link(2) fails if `to` exists: a file made meanwhile is not overwritten.
        guard Glibc.link(from, to) == 0 else { throw Failure(description: "cannot name the copy \(to): \(String(cString: strerror(errno)))") }
    }
}
