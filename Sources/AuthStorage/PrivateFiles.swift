// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Files and directories only their owner may read or replace: the database (0600) and the
/// directories authsh creates for it (0700).
package enum PrivateFiles {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        /// The memberwise initialiser, for the whole package.
        package init(description: String) {
            self.description = description
        }
    }

    /// Creates `path` (and missing parents) 0700. A directory that exists is left as it is,
    /// unless someone else could write to it: then it is refused (a shared directory such as
    /// `/tmp` is never made private, and a database in it could be replaced, or its journal
    /// planted, by another user).
    package static func directory(_ path: String) throws {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            parts.append(part)
            let prefix = parts.joined(separator: "/")
            if prefix.isEmpty { continue }
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw Failure(description: "cannot create the data directory \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        // The directory as it really is (symlinks resolved), and every directory above it: a
        // directory another user may rename entries of could have ours swapped for theirs.
        guard let resolved = realpath(path, nil) else {
            throw Failure(description: "cannot read the data directory \(path): \(String(cString: strerror(errno)))")
        }
        let real = String(cString: resolved)
        free(resolved)
        var ancestor = ""
        for part in real.split(separator: "/") {
            ancestor += "/" + part
            var info = stat()
            guard stat(ancestor, &info) == 0 else {
                throw Failure(description: "cannot read \(ancestor): \(String(cString: strerror(errno)))")
            }
            if let problem = sharedProblem(info, leaf: ancestor == real) {
                throw Failure(
                    description: "the database's directory \(path)" + (ancestor == real ? "" : " is inside \(ancestor), which")
                        + " \(problem): another user could replace the database or plant its journal. Use a directory "
                        + "only you can write to (a missing one is created 0700)")
            }
        }
    }

    /// Why a directory with `info` is not safe to keep the database under, or nil: it belongs
    /// to another user than this one or root, or others can write to it (the database's own
    /// directory at all; a directory above it unless sticky, as `/tmp` is, where nobody can
    /// rename or remove another's entries).
    private static func sharedProblem(_ info: stat, leaf: Bool) -> String? {
        let mode = String(info.st_mode & 0o7777, radix: 8)
        if info.st_uid != geteuid() && info.st_uid != 0 { return "belongs to another user (uid \(info.st_uid))" }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 && (leaf || info.st_mode & S_ISVTX == 0) {
            return "can be written by other users (mode \(mode))"
        }
        return nil
    }

    /// Sets an existing file to 0600; creates it empty with 0600 when `create` and missing.
    /// Anything but a regular file (a FIFO, a device) is refused without waiting on it.
    package static func file(_ path: String, create: Bool) throws {
        if create {
            let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
            guard fd >= 0 else {
                throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            var info = stat()
            let regular = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
            close(fd)
            guard regular else { throw Failure(description: "\(path) is not a regular file (an SQLite database must be one)") }
        }
        if chmod(path, 0o600) != 0 && errno != ENOENT {
            throw Failure(description: "cannot make \(path) private (0600): \(String(cString: strerror(errno)))")
        }
    }
}
