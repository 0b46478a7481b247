import Glibc

/// Files and directories only their owner may read or replace: the database (0600) and the
/// directories authsh creates for it (0700).
enum PrivateFiles {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Creates `path` (and missing parents) 0700. A directory that exists is left as it is,
    /// unless someone else could write to it: then it is refused (a shared directory such as
    /// `/tmp` is never made private, and a database in it could be replaced, or its journal
    /// planted, by another user).
    static func directory(_ path: String) throws {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            parts.append(part)
            let prefix = parts.joined(separator: "/")
            if prefix.isEmpty { continue }
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw Failure(description: "cannot create the data directory \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Failure(description: "cannot read the data directory \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw Failure(description: "\(path) is not a directory") }
        if let problem = sharedProblem(info) {
            throw Failure(description: "the database's directory \(path) \(problem): another user could replace the database or "
                          + "plant its journal. Use a directory only you can write to (a missing one is created 0700)")
        }
    }

    /// Why a directory with `info` is not the owner's alone, or nil.
    private static func sharedProblem(_ info: stat) -> String? {
        let mode = String(info.st_mode & 0o7777, radix: 8)
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "can be written by other users (mode \(mode))" }
        if info.st_uid != geteuid() && info.st_uid != 0 { return "belongs to another user (uid \(info.st_uid))" }
        return nil
    }

    /// Sets an existing file to 0600; creates it empty with 0600 when `create` and missing.
    static func file(_ path: String, create: Bool) throws {
        if create {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            close(fd)
        }
        if chmod(path, 0o600) != 0 && errno != ENOENT {
            throw Failure(description: "cannot make \(path) private (0600): \(String(cString: strerror(errno)))")
        }
    }
}
