// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import CLinux
import CommandSupport
import Glibc
import Spawn
import Synchronization

/// The server `authsh` starts when no `--server` is named: `authsh-server embedded`, a child
/// process serving in dev mode on 127.0.0.1 (an ephemeral port), its database under
/// `DATA/server`, plugins from `--plugins` (default `./plugins` when it exists). It starts on
/// the first request a script makes, again on the next request if it has died, and stops when
/// this process ends, however it ends.
///
/// What the two processes say to each other (`authsh-server`'s `EmbeddedCommand` is the other
/// side):
/// - the child's standard input: the admin key on one line (never on a command line, where any
///   local user can read it), then nothing. Only this process holds the other end, so the end
///   of the file means this process is gone and the server should stop.
/// - the child's standard output: one line, `http://127.0.0.1:PORT` once it listens, or
///   `error: WHY` when it cannot start.
/// - the child's standard error is this process's: the server's warnings show where the
///   script's do.
/// - SIGINT, SIGQUIT and SIGTSTP are blocked in the child: Ctrl-C interrupts the script, not
///   its server.
enum EmbeddedServer {
    /// A function that starts the server and returns its origin. `adminKey` opens its admin
    /// API to this process's scripts (`auth.admin()`), under the name `embedded`.
    /// `child` learns which process it is, for `Child.isRunning`.
    /// `appId`: the playground app's id, when it is not `local`.
    static func starter(dataDirectory: String, plugins: String?, appId: String? = nil, adminKey: AdminKey, child: Child)
        -> @Sendable () async throws -> String
    {
        {
            let key = adminKey.value
            // Waiting for the child blocks: on a thread of its own, not one async code shares.
            return try await BlockingThread.run {
                Result { () throws(EmbeddedServerError) in
                    let started = try start(serverDirectory: dataDirectory + "/server", plugins: plugins, appId: appId, adminKey: key)
                    child.started(pid: started.pid, stdin: started.stdin)
                    return started.origin
                }
            }.get()
        }
    }

    /// How long the server may take to say where it listens before it is given up.
    static let startTimeout: Duration = .seconds(60)

    /// Spawns the server and waits for its origin; `stdin` is the write end of the child's
    /// standard input, kept open while it runs (its closing stops the server).
    static func start(serverDirectory: String, plugins: String?, appId: String? = nil, adminKey: String)
        throws(EmbeddedServerError) -> (origin: String, pid: pid_t, stdin: Int32)
    {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&toChild) == 0 else { throw EmbeddedServerError(systemCall: "pipe") }
        guard clinux_pipe_cloexec(&fromChild) == 0 else {
            let error = EmbeddedServerError(systemCall: "pipe")
            close(toChild[0])
            close(toChild[1])
            throw error
        }
        defer { close(fromChild[0]) }

        // The key goes into the pipe before the child exists (it fits the pipe's buffer many
        // times over): a child that dies at once cannot make this write raise SIGPIPE.
        // toChild[1] then stays open, on purpose, while the server runs (``Child`` closes it once
        // the server has exited): its closing, at the latest when this process ends, is the
        // signal for the server to stop. (It is close-on-exec: no program this one runs holds it.)
        guard Output.write(toChild[1], adminKey + "\n") else {
            let error = EmbeddedServerError(systemCall: "write")
            for fd in [toChild[0], toChild[1], fromChild[1]] { close(fd) }
            throw error
        }
        var arguments = ["authsh-server", "embedded", "--data", serverDirectory]
        if let plugins { arguments += ["--plugins", plugins] }
        if let appId { arguments += ["--app", appId] }
        let program = ServerProgram.path
        var pid: pid_t = 0
        let status = program.map { spawn($0, arguments, standardInput: toChild[0], standardOutput: fromChild[1], pid: &pid) } ?? ENOENT
        close(toChild[0])
        close(fromChild[1])
        guard status == 0 else {
            close(toChild[1])
            throw EmbeddedServerError(message: ServerProgram.missing(program, errno: status))
        }
        let answer = LineReader.readLine(fromChild[0], timeout: startTimeout)
        if case .line(let line) = answer, line.hasPrefix("http://") { return (line, pid, toChild[1]) }
        // It did not start: it is ending, or is made to, and leaves no zombie and no descriptor behind.
        Self.reap(pid)
        close(toChild[1])
        switch answer {
        case .line(let text) where text.hasPrefix("error: "):
            throw EmbeddedServerError(message: String(text.dropFirst("error: ".count)))
        case .line(let text):
            throw EmbeddedServerError(message: "it said '\(text.prefix(200))' in place of where it listens")
        case .ended:
            throw EmbeddedServerError(message: "it exited without saying where it listens")
        case .timedOut:
            throw EmbeddedServerError(message: "it did not say where it listens within \(startTimeout.components.seconds) s")
        }
    }

    /// Ends a server that did not start (it may still be running: SIGKILL) and waits for it.
    private static func reap(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Starts the server with the two pipe ends as its standard input and output (its stderr
    /// stays this process's), nothing else of this process (``ProgramSpawn``), and the
    /// terminal's signals blocked. Returns 0 or an errno.
    private static func spawn(_ program: String, _ arguments: [String], standardInput: Int32, standardOutput: Int32, pid: inout pid_t) -> Int32 {
        switch ProgramSpawn.spawn(
            program, arguments: arguments, standardInput: standardInput, standardOutput: standardOutput,
            standardError: STDERR_FILENO, blockedSignals: [SIGINT, SIGQUIT, SIGTSTP])
        {
        case .success(let child):
            pid = child
            return 0
        case .failure(let error):
            return error.errno
        }
    }
}

extension EmbeddedServer {
    /// The running server's process, as far as this process knows it.
    final class Child: Sendable {
        /// The server's process and the write end of its standard input; pid 0 when none runs.
        private let state = Mutex<(pid: pid_t, stdin: Int32)>((0, -1))

        func started(pid: pid_t, stdin: Int32) { state.withLock { $0 = (pid, stdin) } }

        /// False once the server has exited (it is then waited for, and its standard input
        /// closed: no zombie and no descriptor stays).
        var isRunning: Bool {
            state.withLock { child in
                guard child.pid > 0 else { return false }
                var status: Int32 = 0
                guard waitpid(child.pid, &status, WNOHANG) == 0 else {
                    close(child.stdin)
                    child = (0, -1)
                    return false
                }
                return true
            }
        }
    }

    /// A key for the embedded server's admin API, known only to this process and its server,
    /// made the first time the server starts or a script asks for it (making it at start-up
    /// would cost every run of `authsh`).
    final class AdminKey: Sendable {
        private let key = Mutex<String?>(nil)

        var value: String {
            key.withLock { key in
                if let key { return key }
                let made = Hex.encode(SystemRandomNumberGenerator.bytes(32))  // as AdminKeys.randomKey makes one
                key = made
                return made
            }
        }
    }
}

struct EmbeddedServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }

    init(message: String) { self.message = message }

    /// A failed system call, with errno's reason.
    init(systemCall: String) { message = "\(systemCall) failed (\(String(cString: strerror(errno))))" }
}
