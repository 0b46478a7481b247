import Glibc

/// Files and directories only their owner may read: the data directory (0700) and the
/// database (0600).
enum PrivateFiles {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Creates `path` (and missing parents) 0700, or sets an existing directory to 0700.
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
        guard chmod(path, 0o700) == 0 else {
            throw Failure(description: "cannot make the data directory \(path) private (0700): \(String(cString: strerror(errno)))")
        }
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
