// SPDX-License-Identifier: Apache-2.0
/// A SQLite write-ahead log read as SQLite's recovery reads it, to find damage that recovery
/// would pass over in silence.
///
/// When a database is opened after a crash, SQLite replays its `-wal` file: frames from the
/// start for as long as each one's salts match the header and its running checksum holds, up to
/// the last commit frame among them. Whatever follows the first frame that fails is dropped
/// without a word, and a log whose header fails is dropped whole. For a torn tail (the last
/// transaction cut off by a crash) that is right. For damage in the middle it silently loses
/// every transaction committed after it (a password change, a revoked session come back), and
/// for a damaged header it loses all of them, and the server then migrated the old file into
/// what looked like a new database.
///
/// The rule here: the log is damaged when a frame of the current log (its salts match the
/// header's) marks a commit *after* the first frame that fails, or when the header fails and
/// frames follow it. A failing last transaction is not damage: a crash cuts one off, and SQLite's
/// `synchronous = NORMAL` allows a power loss to lose the last ones.
///
/// Format: the SQLite file format's "WAL file format" (a 32-byte header, then frames of a 24-byte
/// header and one page; header fields big-endian; checksums over 32-bit words in the byte
/// order the magic number names).
package struct WriteAheadLog {
    /// What the log holds.
    package enum Inspection: Equatable {
        /// No frames (an empty file, or a header alone).
        case empty
        /// Frames SQLite will replay: `committed` frames up to the last commit.
        case intact(committed: Int)
        /// Damage that would make SQLite drop committed changes; `reason` says where.
        case damaged(reason: String)
    }

    package static let headerSize = 32
    package static let frameHeaderSize = 24

    /// Reads `bytes`, a whole `-wal` file.
    package static func inspect(_ bytes: [UInt8]) -> Inspection {
        guard bytes.count > headerSize else { return .empty }
        let magic = word(bytes, 0, bigEndian: true)
        let pageSize = Int(word(bytes, 8, bigEndian: true))
        let validPageSize = pageSize == 65536 || (pageSize >= 512 && pageSize <= 32768 && pageSize & (pageSize - 1) == 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682, word(bytes, 4, bigEndian: true) == 3_007_000, validPageSize else {
            return .damaged(reason: "its header is not a SQLite write-ahead log header, and \(bytes.count - headerSize) bytes follow it")
        }
        let bigEndian = magic & 1 == 1
        var sum = checksum(bytes, 0..<24, bigEndian: bigEndian, from: (0, 0))
        guard sum == (word(bytes, 24, bigEndian: true), word(bytes, 28, bigEndian: true)) else {
            if bytes.count < headerSize + frameHeaderSize + pageSize { return .empty }
            return .damaged(reason: "its header's checksum fails, and frames follow it")
        }
        let salts = (word(bytes, 16, bigEndian: true), word(bytes, 20, bigEndian: true))
        let frameSize = frameHeaderSize + pageSize
        let frames = (bytes.count - headerSize) / frameSize
        var committed = 0
        for index in 0..<frames {
            let start = headerSize + index * frameSize
            let ours = (word(bytes, start + 8, bigEndian: true), word(bytes, start + 12, bigEndian: true)) == salts
            if ours && word(bytes, start, bigEndian: true) != 0 {
                sum = checksum(bytes, start..<(start + 8), bigEndian: bigEndian, from: sum)
                sum = checksum(bytes, (start + frameHeaderSize)..<(start + frameSize), bigEndian: bigEndian, from: sum)
                if sum == (word(bytes, start + 16, bigEndian: true), word(bytes, start + 20, bigEndian: true)) {
                    if word(bytes, start + 4, bigEndian: true) != 0 { committed = index + 1 }
                    continue
                }
            }
            // The first frame SQLite stops at. A commit of this log after it is a loss.
            for later in (index + 1)..<max(index + 1, frames) {
                let at = headerSize + later * frameSize
                if (word(bytes, at + 8, bigEndian: true), word(bytes, at + 12, bigEndian: true)) == salts,
                    word(bytes, at, bigEndian: true) != 0, word(bytes, at + 4, bigEndian: true) != 0
                {
                    return .damaged(
                        reason: "frame \(index + 1) of \(frames) is damaged, and changes committed after it (frame \(later + 1)) would be lost")
                }
            }
            break
        }
        return committed == 0 ? .empty : .intact(committed: committed)
    }

    /// The 32-bit word at `offset`.
    private static func word(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt32 {
        let b0 = UInt32(bytes[offset]), b1 = UInt32(bytes[offset + 1]), b2 = UInt32(bytes[offset + 2]), b3 = UInt32(bytes[offset + 3])
        return bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
    }

    /// SQLite's WAL checksum of `range` (a multiple of 8 bytes), continuing from `sum`.
    private static func checksum(_ bytes: [UInt8], _ range: Range<Int>, bigEndian: Bool, from sum: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = sum
        var i = range.lowerBound
        while i < range.upperBound {
            s0 = s0 &+ word(bytes, i, bigEndian: bigEndian) &+ s1
            s1 = s1 &+ word(bytes, i + 4, bigEndian: bigEndian) &+ s0
            i += 8
        }
        return (s0, s1)
    }
}
