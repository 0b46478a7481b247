// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A long-lived helper process of a test (an SMTP server, an identity provider, `authsh
/// serve`), spawned with `posix_spawn` so that it inherits none of this process's descriptors
/// (a pipe end of another test's child would keep that test waiting for an end of file), its
/// output in files, and ended with a signal and `waitpid` (not Foundation's `Process`, whose
/// wait was seen to hang here). Every test's child process is one of these; a command run to
/// its end is ``run(_:)``, and the authsh binary's runs are `Binary.run`.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The file its standard output goes to (and its standard error, unless given its own).
    public let output: String
    /// How it ended, once it is reaped: `waitpid`'s status. Reaped once, so that a signal is
    /// never sent to a process that took its id since.
    private let ended = Mutex<Int32?>(nil)

    /// Starts `arguments[0]` (a path) with the rest as arguments; standard output goes to the
    /// file `output`, standard error to `errors` (or with the output), standard input is
    /// /dev/null; `environment` entries are added to this process's.
    public init(_ arguments: [String], output: String, errors: String? = nil, environment: [String: String] = [:]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        try PostgresCluster.closeInheritedDescriptors(&actions, alreadyClosed: [])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, &envp)
        guard spawned == 0 else {
            throw PostgresCluster.ClusterError(description: "\(arguments[0]) could not start: \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        self.output = output
    }

    /// Runs a command to its end and returns its output; throws when it fails.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        try PostgresCluster.shell(arguments)
    }

    /// Whether it still runs (it is reaped once it ended).
    public var isRunning: Bool {
        ended.withLock { status in
            guard status == nil else { return false }
            var s: Int32 = 0
            guard waitpid(pid, &s, WNOHANG) == pid else { return true }
            status = s
            return false
        }
    }

    /// The signal that ended it, once it ended by one.
    public var terminatingSignal: Int32? {
        guard !isRunning, let status = ended.withLock({ $0 }), status & 0x7f != 0, status & 0x7f != 0x7f else { return nil }
        return status & 0x7f
    }

    /// What it wrote to ``output`` so far.
    public func outputText() -> String {
        (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Waits until `match` finds what it looks for in the output so far, and returns it; throws
    /// when the process ends first, or when `timeout` passes (a bound for a machine so slow
    /// that the test has failed anyway, not a guess at how long it takes).
    public func waitForOutput<T>(timeout: Duration = .seconds(60), _ match: (String) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = match(outputText()) { return found }
            guard isRunning else {
                throw PostgresCluster.ClusterError(description: "the process ended before it wrote what was awaited: \(outputText().suffix(2000))")
            }
            guard ContinuousClock.now < deadline else {
                throw PostgresCluster.ClusterError(description: "nothing awaited within \(timeout): \(outputText().suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends `signal` unless it has been reaped.
    public func signal(_ signal: Int32) {
        ended.withLock { status in if status == nil { _ = kill(pid, signal) } }
    }

    /// Waits for it to end (it is reaped then).
    public func waitForExit() async throws {
        while isRunning { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// Its exit status, once it exited (not when a signal ended it).
    public var exitStatus: Int32? {
        guard !isRunning, let status = ended.withLock({ $0 }), status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    /// Kills it (SIGKILL) and reaps it, blocking the calling thread until it has ended (at
    /// once, for SIGKILL); idempotent.
    public func stop() {
        signal(SIGKILL)
        // Polled, so that the lock is never held while the child runs: a signal from another
        // thread must get through.
        while isRunning { usleep(1000) }
    }

    /// Asks it to end (SIGTERM) and, on a thread of its own, reaps it, killing it after
    /// `grace` if it has not ended: for servers whose shutdown must not hold the tests.
    public func terminate(grace: Duration = .seconds(30)) {
        signal(SIGTERM)
        let child = self
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + grace
            while child.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
            child.stop()
        }
    }

    deinit { stop() }
}
