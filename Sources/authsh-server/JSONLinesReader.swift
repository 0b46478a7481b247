// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The lines of a file of one JSON value a line (Supabase's `row_to_json` rows, Auth0's export
/// and password files), one at a time, read 64 KiB at a time; blank lines are passed over, a
/// line over 1 MiB is refused.
struct JSONLinesReader {
    private let fd: Int32
    let size: Int
    private(set) var bytesRead = 0
    private var buffer: [UInt8] = []
    private var position = 0
    private var line: [UInt8] = []
    private var ended = false
    static let lineLimit = 1 << 20

    init(path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FirebaseExportImport.Refused("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(fd, &info)
        size = Int(info.st_size)
    }

    /// The next non-blank line, without its end, or nil at the end of the file.
    mutating func next() throws -> [UInt8]? {
        while !ended {
            if position == buffer.count {
                buffer = [UInt8](repeating: 0, count: 65_536)
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else {
                    close(fd)
                    ended = true
                    break
                }
                buffer.removeSubrange(n...)
                position = 0
                bytesRead += n
            }
            guard let newline = buffer[position...].firstIndex(of: 10) else {
                line += buffer[position...]
                position = buffer.count
                guard line.count <= Self.lineLimit else { throw FirebaseExportImport.Refused("a line is over 1 MiB") }
                continue
            }
            line += buffer[position..<newline]
            position = newline + 1
            defer { line = [] }
            if let found = Self.trimmed(line) { return found }
        }
        defer { line = [] }
        return Self.trimmed(line)
    }

    private static func trimmed(_ line: [UInt8]) -> [UInt8]? {
        let isSpace = { (c: UInt8) in c == 32 || c == 9 || c == 13 }
        guard let first = line.firstIndex(where: { !isSpace($0) }), let last = line.lastIndex(where: { !isSpace($0) }) else {
            return nil
        }
        return Array(line[first...last])
    }
}
