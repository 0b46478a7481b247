// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A shared `flock(2)` on a database file, held by every engine that has it open (a server,
/// and the commands that open the database themselves), so that `authsh admin restore` can
/// tell the file is in use and refuse to replace it. flock locks are apart from the POSIX
/// locks SQLite takes on the same file: neither disturbs the other.
package final class DatabaseUseLock: Sendable {
    private let fd: Int32

    /// Holds a shared lock on `path` until released (deinit); nil when the file cannot be
    /// opened (the engine then runs without: the lock only guards restores).
    package init?(sharedOn path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)  // never waiting on a FIFO
        guard fd >= 0 else { return nil }
        while flock(fd, LOCK_SH) != 0 {
            guard errno == EINTR else {
                close(fd)
                return nil
            }
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// An exclusive lock on `path` (created 0600 if missing) for the caller to hold while it
    /// replaces the database; nil, with errno EWOULDBLOCK, while anyone holds the shared one.
    package static func exclusive(_ path: String) -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o600)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let saved = errno
            close(fd)
            errno = saved
            return nil
        }
        return fd
    }
}
