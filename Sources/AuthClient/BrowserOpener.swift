import AuthProtocol
import Glibc

/// Opens a URL in the person's browser: the first command of `$BROWSER` (a colon-separated
/// list, as xdg-utils reads it), else `xdg-open` when there is a display. The command gets
/// the URL as its one argument (never through a shell) and its output goes nowhere.
enum BrowserOpener {
    /// True when a browser command was started.
    static func open(_ url: String) -> Bool {
        var command: String?
        if let browser = getenv("BROWSER").map({ String(cString: $0) }), let first = browser.split(separator: ":").first {
            command = String(first)
        } else if getenv("DISPLAY") != nil || getenv("WAYLAND_DISPLAY") != nil {
            command = "xdg-open"
        }
        guard let command, !command.isEmpty else { return false }
        return spawn(command, url)
    }

    private static func spawn(_ command: String, _ url: String) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(command), strdup(url), nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawnp(&pid, command, &actions, nil, argv, environ) == 0 else { return false }
        // Reaped on a thread of its own: the browser may outlive the sign-in.
        let child = pid
        BlockingThread.detach { var status: Int32 = 0; waitpid(child, &status, 0) }
        return true
    }
}
