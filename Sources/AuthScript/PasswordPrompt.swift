// SPDX-License-Identifier: Apache-2.0
import Glibc
import Lua

/// `auth.password([prompt])`: reads a line with echo off when stdin is a terminal (the prompt
/// goes to stderr), or a plain line from stdin otherwise. Ctrl-C gives up.
enum PasswordPrompt {
    static let function = LuaFunction(
        "auth.password", "(prompt?: string): string",
        "A line read with echo off (the prompt, default `Password: `, on stderr); from a pipe, a plain line. "
            + "Raises `auth.password: no input` at end of input, `auth.password: interrupted` on Ctrl-C."
    ) { call in
        let prompt = try call.optionalString(1) ?? "Password: "
        let terminal = isatty(0) != 0
        var saved = termios()
        if terminal {
            StandardError.write(prompt)
            tcgetattr(0, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(0, TCSAFLUSH, &saved)
                StandardError.write("\n")
            }
        }
        switch readLine(interruptible: terminal) {
        case .line(let line): return .one(.string(LuaString(bytes: line)))
        case .end: throw LuaRaise("auth.password: no input")
        case .interrupted: throw LuaRaise("auth.password: interrupted")
        }
    }

    private enum Input {
        case line([UInt8])
        case end
        case interrupted
    }

    /// One line from fd 0 without its newline.
    private static func readLine(interruptible: Bool) -> Input {
        var line: [UInt8] = []
        LuaState.drainInterrupts()
        while true {
            if interruptible {
                var fds = [
                    pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: LuaState.interruptFD, events: Int16(POLLIN), revents: 0),
                ]
                if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue } else { return .end } }
                if fds[1].revents != 0 { return .interrupted }
            }
            var byte: UInt8 = 0
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return line.isEmpty ? .end : .line(line) }
            if byte == UInt8(ascii: "\n") { return .line(line) }
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
    }
}
