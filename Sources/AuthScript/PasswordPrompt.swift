import Glibc
import Lua

/// `auth.password([prompt])`: reads a line with echo off when stdin is a terminal (the prompt
/// goes to stderr), or a plain line from stdin otherwise. Ctrl-C gives up.
enum PasswordPrompt {
    static let function = LuaFunction("auth.password") { call in
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
        guard let line = readLine(interruptible: terminal) else {
            throw LuaRaise(terminal ? "auth.password: interrupted" : "auth.password: no input")
        }
        return .one(.string(LuaString(bytes: line)))
    }

    /// One line from fd 0 without its newline; nil at end of input, or on Ctrl-C.
    private static func readLine(interruptible: Bool) -> [UInt8]? {
        var line: [UInt8] = []
        LuaState.drainInterrupts()
        while true {
            if interruptible {
                var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: LuaState.interruptFD, events: Int16(POLLIN), revents: 0)]
                if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue } else { return nil } }
                if fds[1].revents != 0 { return nil }
            }
            var byte: UInt8 = 0
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return line.isEmpty ? nil : line }
            if byte == UInt8(ascii: "\n") { return line }
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
    }
}
