// SPDX-License-Identifier: Apache-2.0
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

    /// Writes `text` to `path`, readable by its owner only (made so even when the file was
    /// there); false when it cannot (errno says why). `replacing` false: the file must be new.
    public static func writePrivate(_ path: String, _ text: String, replacing: Bool = false) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (replacing ? O_TRUNC : O_EXCL), 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fchmod(fd, 0o600) == 0 && Output.write(fd, text)
    }

    /// The names in `directory`, `.` and `..` left out; empty when it cannot be read.
    public static func names(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `path` is a directory (following a symbolic link).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes `path` and everything under it, symbolic links as links (never what they name).
    public static func removeTree(_ path: String) {
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            for name in names(in: path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
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
