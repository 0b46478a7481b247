// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import Glibc
import GRDBSQLite

/// A consistent copy of a live SQLite database, with SQLite's online backup API: the copy is
/// the database as one read transaction saw it, made while the server goes on serving and
/// writing (write-ahead logging lets a reader and the writer run together).
public enum SQLiteBackup {
    /// What a backup or a restore made.
    public struct Copy: Sendable {
        /// The database's pages and their size.
        public let pages: Int
        public let bytes: Int
        /// A restore's: where the database it replaced is kept until a server next starts on
        /// the restored one (nil when there was none, or one kept from an earlier restore).
        public var replaced: String? = nil

        /// The memberwise initialiser, for the whole package.
        package init(pages: Int, bytes: Int, replaced: String? = nil) {
            self.pages = pages
            self.bytes = bytes
            self.replaced = replaced
        }
    }

    /// Where a restore keeps the database it replaced: `PATH.replaced` (with its
    /// `-wal` beside it when it had one).
    public static func replacedPath(_ database: String) -> String { database + ".replaced" }

    /// Why a backup was not made (nothing is left at the destination then).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        /// The memberwise initialiser, for the whole package.
        package init(description: String) {
            self.description = description
        }
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
    /// (``DatabaseUseLock``), and a `file` that is no sound authsh database: it must pass
    /// `PRAGMA integrity_check` and hold a schema this binary can open
    /// (``SQLiteSchema/verify(_:)``), all checked before the live database is touched.
    ///
    /// The backup is copied (SQLite's backup API) to a new file beside the destination, flushed,
    /// then renamed over it; the database it replaces is kept, by hard links, as
    /// ``replacedPath(_:)`` until a server starts on the restored one
    /// (``discardReplaced(_:)``). A failure at any step leaves the destination as it was.
    public static func restore(from file: String, to destination: String) throws(Failure) -> Copy {
        do { try RegularFile.check(file) } catch { throw Failure(description: error.description) }
        let from = try open(file, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        try check(from, file, pragma: "integrity_check")
        do { try SQLiteSchema.verify(SQLiteConnection(path: file, readOnly: true)) } catch {
            throw Failure(description: "\(file) is no authsh database this authsh can restore: \(error)")
        }
        guard let lock = DatabaseUseLock.exclusive(destination) else {
            if errno == EWOULDBLOCK {
                throw Failure(description: "\(destination) is in use (a server, or an authsh command, has it open): stop it first")
            }
            throw Failure(description: "cannot open \(destination): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(lock) }
        var live = stat()
        guard fstat(lock, &live) == 0, live.st_mode & S_IFMT == S_IFREG else {
            throw Failure(description: "\(destination) is not a regular file")
        }
        let partial = destination + ".restoring-\(getpid())"
        unlink(partial)
        var linked: [String] = []
        do throws(Failure) {
            var copy = try backup(from, file, into: partial)
            let replaced = replacedPath(destination)
            // A database kept by an earlier restore, with no server started since, is the one
            // that last served: it stays, and the one restored after it, which never served,
            // is not kept.
            if live.st_size > 0 && access(replaced, F_OK) != 0 {
                for suffix in ["", "-wal"] where access(destination + suffix, F_OK) == 0 {
                    try link(destination + suffix, replaced + suffix)
                    linked.append(replaced + suffix)
                }
                copy.replaced = replaced
            }
            unlink(destination + "-wal")
            unlink(destination + "-shm")
            guard rename(partial, destination) == 0 else {
                throw Failure(description: "cannot put the restored database in place: \(String(cString: strerror(errno)))")
            }
            syncDirectory(of: destination)
            return copy
        } catch {
            unlink(partial)
            for path in linked { unlink(path) }
            throw error
        }
    }

    /// Removes the database a restore kept beside `database` (``replacedPath(_:)``): a server
    /// started on the restored one, so it is not needed to go back.
    public static func discardReplaced(_ database: String) {
        let replaced = replacedPath(database)
        for suffix in ["", "-wal", "-shm"] { unlink(replaced + suffix) }
    }

    private static func syncDirectory(of path: String) {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = Glibc.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
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
        // Read-write, not read-only: a reader of a database in WAL mode must be able to use its
        // shared-memory index; nothing is written to the source.
        let from = try open(source, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(from) }
        return try backup(from, source, into: path)
    }

    /// Copies the open database `from` (named `source`) into the new file `path`, checked,
    /// standing alone (no write-ahead log) and flushed.
    private static func backup(_ from: OpaquePointer, _ source: String, into path: String) throws(Failure) -> Copy {
        // Made 0600 before SQLite writes a byte: the copy holds password hashes and keys.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
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

    /// `PRAGMA quick_check` (a copy just made) or `integrity_check` (a file to restore): the
    /// first problem it names, when it finds any.
    private static func check(_ db: OpaquePointer, _ path: String, pragma: String = "quick_check") throws(Failure) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA \(pragma)", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "cannot check \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw Failure(description: "\(path) failed its check: \(String(cString: sqlite3_errmsg(db)))")
        }
        let first = String(cString: text)
        guard first == "ok" else { throw Failure(description: "\(path) failed its check (\(pragma)): \(first.prefix(200))") }
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
