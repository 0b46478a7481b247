// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc
import Spawn

/// Opens a URL in the person's browser: the first command of `$BROWSER` (a colon-separated
/// list, as xdg-utils reads it), else `xdg-open` when there is a display. The command gets
/// the URL as its one argument (never through a shell), its output goes nowhere, and it holds
/// no descriptor of this process (``ProgramSpawn``).
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
        // Only /dev/null on 0 to 2 and nothing else of this process (ProgramSpawn's policy):
        // the client's sockets carry tokens.
        guard case .success(let child) = ProgramSpawn.spawn(command, arguments: [command, url], searchPath: true) else { return false }
        // Reaped on a thread of its own: the browser may outlive the sign-in.
        BlockingThread.detach {
            var status: Int32 = 0; waitpid(child, &status, 0)
        }
        return true
    }
}
