// SPDX-License-Identifier: Apache-2.0
/// The lines of a file of one JSON value a line (Supabase's `row_to_json` rows, Auth0's export
/// and password files), one at a time, read 64 KiB at a time; blank lines are passed over, a
/// line over 1 MiB is refused.
struct JSONLinesReader {
    private let file: FileChunkReader
    var size: Int { file.size }
    var bytesRead: Int { file.bytesRead }
    private var buffer: [UInt8] = []
    private var position = 0
    private var line: [UInt8] = []
    private var ended = false
    static let lineLimit = 1 << 20

    init(path: String) throws { file = try FileChunkReader(path: path) }

    /// The next non-blank line, without its end, or nil at the end of the file.
    mutating func next() throws -> [UInt8]? {
        while !ended {
            if position == buffer.count {
                guard let chunk = try file.next() else {
                    ended = true
                    break
                }
                buffer = chunk
                position = 0
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
