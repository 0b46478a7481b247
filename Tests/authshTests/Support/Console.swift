// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// A tmux server with named windows, each a shell in a scratch directory with the built
/// `authsh` first on the PATH: what a person reading the docs would have open.
final class Console {
    let socket = "authsh-docs-\(UUID().uuidString.prefix(8))"
    let directory: String
    private var environment: String

    /// - Parameter directory: the scratch directory (the shells' working directory; `HOME`
    ///   and `AUTHSH_DATA` are inside it).
    init(directory: String) async throws {
        self.directory = directory
        let bin = URL(fileURLWithPath: Binary.path).deletingLastPathComponent().path
        environment = [
            "HOME=\(directory)/home", "PATH=\(bin):/usr/bin:/bin", "TERM=xterm", "NO_COLOR=1", "LANG=C.UTF-8",
            "AUTHSH_DATA=\(directory)/home/.local/share/authsh", "PS1='$ '",
        ].joined(separator: " ")
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        // A first window to hold the server, then a history long enough for a whole document
        // in the windows made after it.
        try await tmux(["new-session", "-d", "-s", "docs", "-n", "idle", "-x", "200", "-y", "50", "sh"], capture: false)
        try await tmux(["set-option", "-g", "history-limit", "100000"], capture: false)
    }

    /// Ends the windows' programs, then tmux. Killed here, at once and from `/proc` alone (a
    /// thread left to do it may not run before the test process exits), not left to tmux's
    /// SIGHUP: a server started in a window ignores SIGHUP (it reloads its plugins on it), so
    /// it outlived the test run.
    deinit {
        let socket = socket
        let tmux = Self.processes().filter { $0.value.command.contains("-L\u{0}\(socket)\u{0}") }.map(\.key)
        for pid in Self.descendants(of: Set(tmux)) { kill(pid, SIGKILL) }
        Thread.detachNewThread { _ = Terminal.spawnAndWait(["/usr/bin/tmux", "-L", socket, "kill-server"]) }
    }

    /// This machine's processes: each one's parent and command line (arguments joined by NUL).
    private static func processes() -> [pid_t: (parent: pid_t, command: String)] {
        var found: [pid_t: (parent: pid_t, command: String)] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid ...": the command may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { continue }
            let command = (try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8)) ?? ""
            found[pid] = (parent, command)
        }
        return found
    }

    /// Every process below `roots` (children, their children, ...).
    private static func descendants(of roots: Set<pid_t>) -> [pid_t] {
        let parents = processes().mapValues(\.parent)
        var found: [pid_t] = []
        var below = roots
        var changed = true
        while changed {
            changed = false
            for (pid, parent) in parents where below.contains(parent) && !below.contains(pid) {
                below.insert(pid)
                found.append(pid)
                changed = true
            }
        }
        return found
    }

    /// Opens window `name`: a shell, ready at its prompt.
    func open(_ name: String) async throws {
        try await tmux(
            ["new-window", "-d", "-t", "docs", "-n", name, "-c", directory, "env -i \(environment) sh"], capture: false)
        _ = try await waitForPrompt(name, after: -1, timeout: .seconds(30))
    }

    func type(_ window: String, _ text: String, enter: Bool = true) async throws {
        try await tmux(["send-keys", "-t", "docs:\(window)", "-l", text])
        if enter { try await tmux(["send-keys", "-t", "docs:\(window)", "Enter"]) }
    }

    func press(_ window: String, _ keys: String...) async throws { try await tmux(["send-keys", "-t", "docs:\(window)"] + keys) }

    /// Everything the window has shown, wrapped lines joined, trailing blank lines dropped.
    func lines(_ window: String) async throws -> [String] {
        var lines = try await tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", "docs:\(window)"])
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Whether `line` is a prompt with nothing typed after it: the shell's, the REPL's, or the
    /// REPL's continuation.
    static func isPrompt(_ line: String) -> Bool {
        let s = line.trimmingCharacters(in: .whitespaces)
        return s == "$" || s == ">>"
            || (s.hasPrefix("authsh ") && s.hasSuffix(">") && s.firstMatch(of: #/^authsh [A-Za-z0-9_.-]+( [^ >]+)?>$/#) != nil)
    }

    /// Waits until a prompt is the last line, later than line `index`; returns all lines.
    func waitForPrompt(_ window: String, after index: Int, timeout: Duration = .seconds(60)) async throws -> [String] {
        try await waitUntil(window, timeout: timeout, "a prompt after line \(index + 1)") { lines in
            lines.count - 1 > index && Console.isPrompt(lines[lines.count - 1])
        }
    }

    /// Polls the window until `condition` holds of its lines.
    func waitUntil(_ window: String, timeout: Duration = .seconds(60), _ what: String, _ condition: ([String]) -> Bool) async throws -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var last: [String] = []
        while clock.now < deadline {
            last = try await lines(window)
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TerminalError(message: "timed out waiting for \(what) in window \(window); it shows:\n" + last.suffix(30).joined(separator: "\n"))
    }

    @discardableResult
    private func tmux(_ arguments: [String], capture: Bool = true) async throws -> String {
        let socket = socket
        return try await Binary.offPool { try Terminal.tmuxBlocking(socket, arguments, capture: capture) }
    }
}
