import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A long-lived helper process of a test (an SMTP server), spawned with `posix_spawn` so that
/// it inherits none of this process's descriptors (a pipe end of another test's child would
/// keep that test waiting for an end of file), its output in a file, and stopped with SIGKILL
/// and `waitpid` (not Foundation's `Process`, whose wait was seen to hang here).
public final class ChildProcess: Sendable {
    public let pid: pid_t

    /// Starts `arguments[0]` (a path) with the rest as arguments; standard output and error go
    /// to the file `output`, standard input is /dev/null.
    public init(_ arguments: [String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        try PostgresCluster.closeInheritedDescriptors(&actions, alreadyClosed: [])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw PostgresCluster.ClusterError(description: "\(arguments[0]) could not start: \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    /// Runs a command to its end and returns its output; throws when it fails.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        try PostgresCluster.shell(arguments)
    }

    /// Whether it still runs (it is reaped once it ended).
    public var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Kills it (SIGKILL) and reaps it; idempotent.
    public func stop() {
        guard kill(pid, SIGKILL) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    deinit { stop() }
}
