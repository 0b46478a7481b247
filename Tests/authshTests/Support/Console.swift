import Foundation

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

    deinit {
        let socket = socket
        Thread.detachNewThread { _ = Terminal.spawnAndWait(["/usr/bin/tmux", "-L", socket, "kill-server"]) }
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
