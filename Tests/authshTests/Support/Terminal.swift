// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The real binary in a real pseudo-terminal, through tmux: keys in, the screen out.
final class Terminal {
    let socket = "authsh-test-\(UUID().uuidString.prefix(8))"
    let dataDirectory: String

    init(arguments: [String] = [], dataDirectory: String, environment: [String: String] = [:]) async throws {
        self.dataDirectory = dataDirectory
        let command = ([Binary.path, "--data", dataDirectory] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let extra = environment.sorted { $0.key < $1.key }.map { "'\($0.key)=\($0.value)'" }.joined(separator: " ")
        // The server daemonizes from this client and keeps its stdout: do not capture it.
        try await tmux(["new-session", "-d", "-x", "120", "-y", "40", "env NO_COLOR=1 TERM=xterm \(extra) \(command)"], capture: false)
    }

    /// A REPL on a fresh data directory, ready at its prompt.
    static func started() async throws -> Terminal {
        let term = try await Terminal(dataDirectory: try Binary.temporaryDirectory())
        try await term.waitFor("authsh local>")
        return term
    }

    deinit {
        // On a thread of its own: the spawn lock may be held for a while by another test.
        let socket = socket
        Thread.detachNewThread { _ = try? Terminal.tmuxBlocking(socket, ["kill-server"], capture: false) }
    }

    /// Types text (literally) and optionally presses Enter.
    func type(_ text: String, enter: Bool = true) async throws {
        try await tmux(["send-keys", "-l", text])
        if enter { try await tmux(["send-keys", "Enter"]) }
    }

    /// Presses named keys (Tab, C-c, C-d, Up).
    func press(_ keys: String...) async throws { try await tmux(["send-keys"] + keys) }

    /// The visible screen.
    func screen() async throws -> String { try await tmux(["capture-pane", "-p"]) }

    /// Waits until the screen contains `text`; returns the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var last = ""
        while clock.now < deadline {
            last = try await screen()
            if last.contains(text) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TerminalError(message: "timed out waiting for \(text.debugDescription); screen:\n\(last)")
    }

    /// True while the program still runs in the pane.
    func isRunning() async throws -> Bool {
        (try? await tmux(["list-panes", "-F", "#{pane_dead}"]))?.hasPrefix("0") ?? false
    }

    /// Presses C-d and waits for the program to exit (it writes its history as it goes);
    /// false if it still runs after `timeout`.
    func quit(timeout: Duration = .seconds(30)) async throws -> Bool {
        try await press("C-d")
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while try await isRunning() {
            guard clock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        return true
    }

    /// The history file of the data directory.
    func history() throws -> String { try String(contentsOfFile: dataDirectory + "/history", encoding: .utf8) }

    @discardableResult
    private func tmux(_ arguments: [String], capture: Bool = true) async throws -> String {
        let socket = socket
        return try await Binary.offPool { try Terminal.tmuxBlocking(socket, arguments, capture: capture) }
    }

    static func tmuxBlocking(_ socket: String, _ arguments: [String], capture: Bool) throws -> String {
        if !capture {
            // Foundation's Process notices exit through a descriptor that tmux's daemonized
            // server would inherit and keep: spawn and reap directly instead.
            let status = Binary.spawnLock.withLock { Terminal.spawnAndWait(["/usr/bin/tmux", "-L", socket] + arguments) }
            guard status == 0 else { throw TerminalError(message: "tmux \(arguments.first ?? "") failed (\(status))") }
            return ""
        }
        Binary.spawnLock.lock()
        defer { Binary.spawnLock.unlock() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-L", socket] + arguments
        let output = Pipe()
        process.standardOutput = capture ? output : FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = capture ? output.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TerminalError(message: "tmux \(arguments.first ?? "") failed")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Terminal {
    /// posix_spawn with stdin/stdout/stderr on /dev/null; returns the exit status.
    static func spawnAndWait(_ argv: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for p in cArguments { free(p) } }
        // Default signal mask and dispositions: test threads may block SIGINT.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }
}

struct TerminalError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
