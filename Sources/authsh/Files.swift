import Glibc

/// File and path helpers on top of libc (authsh keeps Foundation out of its start-up path).
enum Files {
    /// The whole file, or nil (errno says why).
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd)
    }

    static func readStandardInput() -> [UInt8] { readAll(0) ?? [] }

    private static func readAll(_ fd: Int32) -> [UInt8]? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return data }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    /// A first line starting with `#` (a `#!` line) becomes empty, keeping line numbers, as
    /// lua's loadfile does.
    static func skippingShebang(_ source: [UInt8]) -> [UInt8] {
        guard source.first == UInt8(ascii: "#") else { return source }
        guard let newline = source.firstIndex(of: UInt8(ascii: "\n")) else { return [] }
        return Array(source[newline...])
    }

    /// Creates `path` and its parents with mode 0700 (an existing directory is fine).
    static func makeDirectory(_ path: String) -> Bool {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}

enum Paths {
    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// `$AUTHSH_DATA`, else `$XDG_DATA_HOME/authsh`, else `~/.local/share/authsh`.
    static func defaultDataDirectory() -> String {
        if let data = environment("AUTHSH_DATA") { return data }
        if let xdg = environment("XDG_DATA_HOME") { return xdg + "/authsh" }
        let home = environment("HOME") ?? "."
        return home + "/.local/share/authsh"
    }
}

enum Output {
    /// Writes a line to stderr (unbuffered).
    static func error(_ text: String) {
        fflush(nil)
        var line = text
        if !line.hasSuffix("\n") { line += "\n" }
        write(2, line)
    }

    /// Writes all of `text` to `fd`.
    static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Colors only on a terminal, and never with NO_COLOR set.
    static var useColor: Bool { isatty(1) != 0 && getenv("NO_COLOR") == nil }
}
