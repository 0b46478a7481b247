// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A file a person named on the command line or in the config (the config itself, TLS
/// certificates and keys, secrets, plugins, mail templates, import files, backups): opened
/// without ever waiting and refused unless it is a regular file.
///
/// `open(2)` of a FIFO waits for a writer, and a device may never answer: a path typed wrong
/// must fail at once with a message, not hang `authsh serve --check` or a reload. So the file is
/// opened with `O_NONBLOCK` (which an open of a regular file ignores), its type read from the
/// descriptor itself (no window between the check and the read), and only then read.
public struct RegularFile: ~Copyable {
    /// Why a named file cannot be used: a sentence that names the path.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path) \(reason)" }
    }

    /// The open descriptor (closed with the value).
    public let descriptor: Int32
    /// Its `fstat`.
    public let info: stat
    public let path: String

    /// Opens `path` for reading: a regular file, never waiting.
    /// - Throws: ``Failure`` when it cannot be opened or is not a regular file (a FIFO, a
    ///   device, a directory, a socket).
    public init(_ path: String) throws(Failure) {
        (descriptor, info) = try Self.open(path)
        self.path = path
    }

    /// ``init(_:)``'s descriptor and `fstat`, for a caller that keeps the descriptor (and
    /// closes it).
    public static func open(_ path: String) throws(Failure) -> (descriptor: Int32, info: stat) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw Failure(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(path: path, reason: "cannot be read: \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw Failure(path: path, reason: "is \(Self.kind(info.st_mode)), not a regular file")
        }
        // Reads of a regular file never wait anyway; cleared so that nothing downstream sees it.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, info)
    }

    deinit { close(descriptor) }

    /// The whole file, at most `limit` bytes (a file that grows past it while read is refused
    /// too).
    public func read(limit: Int) throws(Failure) -> [UInt8] {
        guard Int(info.st_size) <= limit else { throw Failure(path: path, reason: "is larger than \(Self.size(limit))") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Failure(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            guard bytes.count <= limit else { throw Failure(path: path, reason: "is larger than \(Self.size(limit))") }
        }
    }

    /// The whole regular file at `path`, at most `limit` bytes.
    public static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        try RegularFile(path).read(limit: limit)
    }

    /// Throws unless `path` is a regular file that can be opened (for files a library opens by
    /// name itself, such as SQLite's).
    public static func check(_ path: String) throws(Failure) {
        _ = try RegularFile(path)
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
