// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Tells whether anything in a directory changed since the last question (inotify), so dev
/// mode can reload plugins for the very next call at the cost of one non-blocking read.
final class DirectoryWatcher: Sendable {
    private let fd: Int32

    /// Nil when the directory cannot be watched (it does not exist).
    init?(directory: String) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// True when events arrived since the last call; drains them.
    func changed() -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            var any = false
            while read(fd, buffer.baseAddress, buffer.count) > 0 { any = true }
            return any
        }
    }
}
