// SPDX-License-Identifier: Apache-2.0
import CLinux
import Glibc

/// How authsh starts a program of its own: the browser that `signIn` opens, and the embedded
/// server. The one descriptor policy for those, stated here:
///
/// - The program gets standard input, output and error as the caller names them (`/dev/null`
///   when it names none) and **nothing else**: every other descriptor is closed in the child,
///   between fork and exec, whatever its close-on-exec flag (`closefrom(3)`). SwiftNIO opens its
///   sockets without close-on-exec, and the client's HTTP connections carry tokens: a browser
///   that held one could read or write a session's traffic, and would keep the connection
///   open for as long as it runs.
/// - Signals the terminal sends to the whole process group (`blockedSignals`) can be blocked
///   in the child, for a child that must outlive a Ctrl-C meant for authsh.
///
/// Programs a *script* runs (`os.execute`, `io.popen`) follow another rule, the one Lua
/// scripts expect: they get what `lua5.4` would pass them (the script's files and the
/// descriptors authsh was started with), minus authsh's own sockets (`shellspawn.c`).
public enum ProgramSpawn {
    /// Starts `program` (a path, or with `searchPath` a name looked up in `PATH`) with
    /// `arguments` (the first is the program's name). Returns its pid, or the errno.
    /// - Parameters:
    ///   - standardInput, standardOutput, standardError: descriptors of this process to give
    ///     the child as 0, 1 and 2; nil gives it `/dev/null`.
    ///   - blockedSignals: signals blocked in the child from its start.
    public static func spawn(
        _ program: String, arguments: [String], searchPath: Bool = false, standardInput: Int32? = nil,
        standardOutput: Int32? = nil, standardError: Int32? = nil,
        blockedSignals: [Int32] = []
    ) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, given) in [(STDIN_FILENO, standardInput), (STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)] {
            if let given {
                posix_spawn_file_actions_adddup2(&actions, given, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Everything else this process has open is none of the program's business.
        let closing = clinux_spawn_close_from(&actions, 3)
        guard closing == 0 else { return .failure(SpawnError(errno: closing)) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // SIGPIPE as a program expects it (SwiftNIO ignores it in this process, and an ignored
        // signal stays ignored across exec).
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF)
        if !blockedSignals.isEmpty {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            for signal in blockedSignals { sigaddset(&blocked, signal) }
            posix_spawnattr_setsigmask(&attributes, &blocked)
            flags |= Int32(POSIX_SPAWN_SETSIGMASK)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status =
            searchPath
            ? posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
            : posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        return status == 0 ? .success(pid) : .failure(SpawnError(errno: status))
    }

    /// A spawn that failed: its errno.
    public struct SpawnError: Error, Sendable {
        public var errno: Int32
    }
}
