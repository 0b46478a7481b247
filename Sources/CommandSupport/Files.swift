import Glibc

/// File helpers on top of libc (the `authsh` command keeps Foundation out of its start-up path).
public enum Files {
    /// The whole file, or nil (errno says why).
    public static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd)
    }

    /// All of standard input (empty when it cannot be read).
    public static func readStandardInput() -> [UInt8] { readAll(0) ?? [] }

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
    public static func skippingShebang(_ source: [UInt8]) -> [UInt8] {
        guard source.first == UInt8(ascii: "#") else { return source }
        guard let newline = source.firstIndex(of: UInt8(ascii: "\n")) else { return [] }
        return Array(source[newline...])
    }

    /// Writes `text` to a new file `path` readable by its owner only; false when it cannot
    /// (the file exists, or errno says why).
    public static func writePrivate(_ path: String, _ text: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(n)
        }
        return true
    }

    /// Creates `path` and its parents with mode 0700 (an existing directory is fine).
    public static func makeDirectory(_ path: String) -> Bool {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
