// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What the commands write to the terminal.
public enum Output {
    /// Writes a line to stderr (unbuffered).
    public static func error(_ text: String) {
        fflush(nil)
        var line = text
        if !line.hasSuffix("\n") { line += "\n" }
        write(2, line)
    }

    /// Writes all of `text` to `fd`. False when `fd` would not take it all.
    @discardableResult
    public static func write(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// Colors only on a terminal, and never with NO_COLOR set.
    public static var useColor: Bool { isatty(1) != 0 && getenv("NO_COLOR") == nil }
}
