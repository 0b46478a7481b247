// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import CLinux
import Foundation
import Glibc
import Logging
import PostgresNIO
import Synchronization

/// A private PostgreSQL cluster for the tests: `initdb` into a temporary directory, listening
/// only on a Unix socket in that directory (no TCP, so no port clashes and no system cluster
/// touched), started on first use and stopped when the test process exits. Each test gets a
/// database of its own.
///
/// As root, PostgreSQL's tools run as the `postgres` user (initdb refuses root).
public final class PostgresCluster: Sendable {
    /// The directory of the cluster (its data, log and socket).
    public let directory: String
    /// The port, which here only names the socket file.
    public let port = 5433
    /// The socket file postgres-nio connects to.
    public var socketPath: String { "\(directory)/.s.PGSQL.\(port)" }
    private let bin: String
    private let runAs: [String]
    private let databases = Mutex(0)

    /// The cluster of this test process, started by the first caller. Its commands run on a
    /// thread of their own: `Process.waitUntilExit` is woken through Dispatch, whose threads
    /// are the cooperative pool's on Linux, so a test thread must never block on it.
    public static func shared() async throws -> PostgresCluster {
        let task = starting.withLock { task in
            if let task { return task }
            let new = Task { try await BlockingThread.run { Result { () throws(ClusterError) in try PostgresCluster() } }.get() }
            task = new
            return new
        }
        return try await task.value
    }

    private static let starting = Mutex<Task<PostgresCluster, any Error>?>(nil)

    /// A cluster of the caller's own, for a test that stops and starts PostgreSQL under its
    /// servers (the shared one serves other tests meanwhile). Stopped when the process exits.
    public static func makePrivate() async throws -> PostgresCluster {
        try await BlockingThread.run { Result { () throws(ClusterError) in try PostgresCluster() } }.get()
    }

    /// Stops the server at once, as a crash or a failover would (`pg_ctl -m immediate stop`).
    public func stopImmediately() async throws {
        let command = runAs + ["\(bin)/pg_ctl", "-D", "\(directory)/data", "-w", "-m", "immediate", "stop"]
        try await BlockingThread.run { Result { try Self.shell(command, readOutput: false) } }.get()
    }

    /// Starts the server again on the same data, socket and port; returns once it accepts connections.
    public func start() async throws {
        let command = startCommand
        try await BlockingThread.run { Result { try Self.shell(command, readOutput: false) } }.get()
    }

    private var startCommand: [String] {
        runAs + [
            "\(bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60",
            "-o", "-k \(directory) -p \(port) -c listen_addresses='' -c fsync=off -c max_connections=200", "start",
        ]
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
    }

    private init() throws(ClusterError) {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw ClusterError(description: "PostgreSQL is not installed (run scripts/setup)")
        }
        bin = "/usr/lib/postgresql/\(version)/bin"
        runAs = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        Self.stopAbandonedClusters(bin: bin, runAs: runAs)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("authsh-pg-\(UUID().uuidString.prefix(8))").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try "\(getpid())".write(toFile: directory + "/owner.pid", atomically: true, encoding: .utf8)
            if getuid() == 0 { try Self.shell(["/bin/chown", "postgres:postgres", directory]) }
            try Self.shell(runAs + ["\(bin)/initdb", "-D", "\(directory)/data", "-A", "trust", "-U", "authsh", "-E", "UTF8", "--no-locale"])
            // The server keeps pg_ctl's standard output open: pg_ctl's is not read (a read would wait for the server to end).
            try Self.shell(startCommand, readOutput: false)
        } catch {
            throw ClusterError(description: "could not start a PostgreSQL cluster in \(directory): \(error)")
        }
        let stop = runAs + ["\(bin)/pg_ctl", "-D", "\(directory)/data", "-w", "-m", "immediate", "stop"]
        let dir = directory
        Self.atExit.withLock {
            $0.append({
                _ = try? Self.shell(stop, readOutput: false); try? FileManager.default.removeItem(atPath: dir)
            })
        }
        Self.installAtExit
    }

    /// A new empty database; its name.
    public func makeDatabase() async throws -> String {
        let n = databases.withLock {
            $0 += 1; return $0
        }
        let name = "t\(getpid())_\(n)"
        let command = ["\(bin)/createdb", "-h", directory, "-p", "\(port)", "-U", "authsh", name]
        try await BlockingThread.run { Result { try Self.shell(command) } }.get()
        return name
    }

    /// Runs `sql` as the cluster's superuser (psql), connected to `database`.
    public func execute(_ sql: String, database: String = "postgres") async throws {
        let command = ["\(bin)/psql", "-h", directory, "-p", "\(port)", "-U", "authsh", "-d", database, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql]
        try await BlockingThread.run { Result { try Self.shell(command) } }.get()
    }

    /// The rows `sql` answers on `database`, one line each, columns separated by `|` (psql -At).
    public func query(_ sql: String, database: String) async throws -> [String] {
        let command = ["\(bin)/psql", "-h", directory, "-p", "\(port)", "-U", "authsh", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql]
        let output = try await BlockingThread.run { Result { try Self.shell(command) } }.get()
        return output.split(separator: "\n").map(String.init)
    }

    /// postgres-nio's configuration for `database` over the cluster's socket.
    public func configuration(database: String) -> PostgresClient.Configuration {
        var c = PostgresClient.Configuration(unixSocketPath: socketPath, username: "authsh", password: nil, database: database)
        c.options.maximumConnections = 8
        return c
    }

    /// The `--database` URL of `database` on this cluster.
    public func url(database: String) -> String {
        "postgres://authsh@:\(port)/\(database)?host=\(directory)"
    }

    /// Stops and removes the clusters of test processes that ended without stopping theirs
    /// (killed by a timeout, say).
    private static func stopAbandonedClusters(bin: String, runAs: [String]) {
        let temporary = FileManager.default.temporaryDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix("authsh-pg-") {
            let dir = temporary + "/" + name
            guard let owner = try? String(contentsOfFile: dir + "/owner.pid", encoding: .utf8), let pid = pid_t(owner),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            _ = try? shell(runAs + ["\(bin)/pg_ctl", "-D", "\(dir)/data", "-w", "-m", "immediate", "stop"], readOutput: false)
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    /// Runs a command and returns its output (standard output and error); throws when it
    /// fails. `posix_spawn` and `waitpid`, not Foundation's `Process`, whose wait is woken
    /// through Dispatch and was seen to miss the exit of `runuser` here. With `readOutput`
    /// false the output goes to /dev/null (pg_ctl's server keeps its standard output open).
    @discardableResult
    static func shell(_ arguments: [String], readOutput: Bool = true) throws(ClusterError) -> String {
        var pipe: [Int32] = [-1, -1]
        // Close-on-exec: a program another test spawns meanwhile must not hold the write end
        // (the read below would wait for it to end).
        guard clinux_pipe_cloexec(&pipe) == 0 else { throw ClusterError(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if readOutput {
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        // Nothing else of this process may reach the child: the server pg_ctl starts lives on,
        // and a socket of another test's server it inherited would never close.
        try closeInheritedDescriptors(&actions, alreadyClosed: pipe)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { throw ClusterError(description: "\(arguments[0]) could not start: \(String(cString: strerror(spawned)))") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(pipe[0], &buffer, buffer.count)
            if n > 0 { output += buffer[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = String(decoding: output, as: UTF8.self)
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw ClusterError(description: "\(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// Closes every descriptor above 2 in the child: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later, not in Swift's Glibc
    /// module, so looked up), else each descriptor open now.
    static func closeInheritedDescriptors(
        _ actions: inout posix_spawn_file_actions_t,
        alreadyClosed: [Int32]
    ) throws(ClusterError) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            guard closeFrom(&actions, 3) == 0 else { throw ClusterError(description: "posix_spawn_file_actions_addclosefrom_np failed") }
            return
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2, !alreadyClosed.contains(fd) { posix_spawn_file_actions_addclose(&actions, fd) }
        }
    }

    private static let atExit = Mutex<[@Sendable () -> Void]>([])
    private static let installAtExit: Void = {
        atexit { PostgresCluster.atExit.withLock { hooks in for hook in hooks { hook() } } }
    }()
}
