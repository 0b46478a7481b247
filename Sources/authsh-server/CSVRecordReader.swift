// SPDX-License-Identifier: Apache-2.0
/// The records of a CSV file (RFC 4180: fields separated by commas, a field in double quotes
/// may hold commas, line breaks and doubled quotes), one at a time, read 64 KiB at a time. A
/// quote inside a quoted field that neither doubles nor ends it is kept as it is (firebase-tools
/// writes `\"` of a JSON value so). Written here because no CSV library is among the packages
/// and the file may hold a million users; a record is at most 1 MiB.
struct CSVRecordReader {
    private let file: FileChunkReader
    var size: Int { file.size }
    var bytesRead: Int { file.bytesRead }
    private var buffer: [UInt8] = []
    private var position = 0
    static let recordLimit = 1 << 20

    init(path: String) throws { file = try FileChunkReader(path: path) }

    /// Reads the next piece when the buffer is used up; false at the end of the file.
    private mutating func fill() throws -> Bool {
        guard position == buffer.count else { return true }
        guard let chunk = try file.next() else { return false }
        buffer = chunk
        position = 0
        return true
    }

    /// The next byte, or nil at the end of the file.
    private mutating func byte() throws -> UInt8? {
        guard try fill() else { return nil }
        defer { position += 1 }
        return buffer[position]
    }

    /// The byte after, not taken; nil at the end of the file.
    private mutating func peek() throws -> UInt8? { try fill() ? buffer[position] : nil }

    /// The next record's fields, or nil at the end of the file; blank lines are passed over.
    mutating func next() throws -> [String]? {
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false, wasQuoted = false, total = 0
        while true {
            guard let c = try byte() else {
                guard !quoted else { throw FirebaseExportImport.Refused("the CSV ends inside a quoted field") }
                if fields.isEmpty && field.isEmpty && !wasQuoted { return nil }
                fields.append(String(decoding: field, as: UTF8.self))
                return fields
            }
            total += 1
            guard total <= Self.recordLimit else { throw FirebaseExportImport.Refused("a CSV record is over 1 MiB") }
            if quoted {
                if c == UInt8(ascii: "\"") {
                    if try peek() == UInt8(ascii: "\"") {
                        _ = try byte()
                        field.append(c)
                    } else if let after = try peek(), ![UInt8(ascii: ","), 10, 13].contains(after) {
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
