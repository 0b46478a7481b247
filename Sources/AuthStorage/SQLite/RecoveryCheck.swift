// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// What is checked before SQLite opens a database file and replays its write-ahead log, so that
/// what SQLite's recovery would do in silence is refused with a message instead: a damaged log
/// (``WriteAheadLog``), or a log of committed changes whose database file is gone (SQLite would
/// start a new, empty database beside it).
///
/// The check runs only when no other connection has the database open (nobody holds a lock on
/// its `-shm` file): then this opening is the one that replays the log. While another process
/// has it open, the log is live (it may be half-way through a frame), and its recovery is not
/// this process's to judge.
package enum RecoveryCheck {
    /// Throws, naming the file and what to do, when opening `path` would lose committed changes.
    package static func check(database path: String) throws(PrivateFiles.Failure) {
        let wal = path + "-wal"
        var info = stat()
        guard stat(wal, &info) == 0, info.st_size > 0, !isOpen(path + "-shm") else { return }
        // Mapped, not read into a buffer first: the log can hold thousands of pages.
        guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: wal), options: .alwaysMapped) else {
            throw PrivateFiles.Failure(description: "cannot read \(wal): \(String(cString: strerror(errno)))")
        }
        switch WriteAheadLog.inspect([UInt8](bytes)) {
        case .empty:
            return
        case .damaged(let reason):
            throw PrivateFiles.Failure(
                description: "\(wal), the database's write-ahead log, is damaged: \(reason). "
                    + "SQLite would open the database without those changes and say nothing, so authsh will not open it. "
                    + "Restore the database and its -wal file from a backup; or, to open it without the changes in the log, "
                    + "move \(wal) and \(path)-shm aside (keep them)")
        case .intact(let committed):
            var main = stat()
            if stat(path, &main) != 0 || main.st_size == 0 {
                throw PrivateFiles.Failure(
                    description: "\(path) is missing or empty, but its write-ahead log \(wal) holds "
                        + "\(committed) committed pages: the database file was lost or moved, and SQLite would start a new "
                        + "database beside the log. Put the file back; or, to start a new database, move \(wal) and \(path)-shm aside")
            }
        }
    }

    /// Whether a process holds a lock on `shm` (every SQLite connection of a database in WAL
    /// mode holds one on its `-shm` file while open). Read from `/proc/locks` rather than by
    /// opening the file: closing a descriptor of a file drops every POSIX lock this process
    /// holds on it, SQLite's own included.
    package static func isOpen(_ shm: String) -> Bool {
        var info = stat()
        guard stat(shm, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        let dev = UInt64(info.st_dev)
        let major = (dev >> 8) & 0xfff | (dev >> 32) & ~0xfff, minor = dev & 0xff | (dev >> 12) & ~0xff
        // "1: POSIX  ADVISORY  READ 1234 00:2d:5678 128 128": device major:minor in hex, inode.
        let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
        return locks.split(separator: "\n").contains { $0.split(separator: " ").contains { $0 == file } }
    }
}
