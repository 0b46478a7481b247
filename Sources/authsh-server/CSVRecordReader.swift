// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The records of a CSV file (RFC 4180: fields separated by commas, a field in double quotes
/// may hold commas, line breaks and doubled quotes), one at a time, read 64 KiB at a time. A
/// quote inside a quoted field that neither doubles nor ends it is kept as it is (firebase-tools
/// writes `\"` of a JSON value so). Written here because no CSV library is among the packages
/// and the file may hold a million users; a record is at most 1 MiB.
struct CSVRecordReader {
    private let fd: Int32
    let size: Int
    private(set) var bytesRead = 0
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    static let recordLimit = 1 << 20

    init(path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FirebaseExportImport.Refused("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(fd, &info)
        size = Int(info.st_size)
    }

    /// Reads the next piece when the buffer is used up; false at the end of the file.
    private mutating func fill() -> Bool {
        guard position == buffer.count else { return true }
        guard !ended else { return false }
        buffer = [UInt8](repeating: 0, count: 65_536)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else {
            close(fd)
            ended = true
            buffer = []
            position = 0
            return false
        }
        buffer.removeSubrange(n...)
        position = 0
        bytesRead += n
        return true
    }

    /// The next byte, or nil at the end of the file.
    private mutating func byte() -> UInt8? {
        guard fill() else { return nil }
        defer { position += 1 }
        return buffer[position]
    }

    /// The byte after, not taken; nil at the end of the file.
    private mutating func peek() -> UInt8? { fill() ? buffer[position] : nil }

    /// The next record's fields, or nil at the end of the file; blank lines are passed over.
    mutating func next() throws -> [String]? {
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false, wasQuoted = false, total = 0
        while true {
            guard let c = byte() else {
                guard !quoted else { throw FirebaseExportImport.Refused("the CSV ends inside a quoted field") }
                if fields.isEmpty && field.isEmpty && !wasQuoted { return nil }
                fields.append(String(decoding: field, as: UTF8.self))
                return fields
            }
            total += 1
            guard total <= Self.recordLimit else { throw FirebaseExportImport.Refused("a CSV record is over 1 MiB") }
            if quoted {
                if c == UInt8(ascii: "\"") {
                    if peek() == UInt8(ascii: "\"") {
                        _ = byte()
                        field.append(c)
                    } else if let after = peek(), ![UInt8(ascii: ","), 10, 13].contains(after) {
                        field.append(c)
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(c)
                }
                continue
            }
            switch c {
            case UInt8(ascii: "\"") where field.isEmpty:
                quoted = true
                wasQuoted = true
            case UInt8(ascii: ","):
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
                wasQuoted = false
            case 13:
                continue
            case 10:
                if fields.isEmpty && field.isEmpty && !wasQuoted { continue }
                fields.append(String(decoding: field, as: UTF8.self))
                return fields
            default:
                field.append(c)
            }
        }
    }
}
