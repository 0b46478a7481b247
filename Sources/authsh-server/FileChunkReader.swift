// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A file read from the start, 64 KiB at a time, for the readers of exports (CSV records, JSON
/// lines, a users array): it opens the file, knows its size and how much has been read for the
/// progress line, refuses a read that fails (rather than taking it for the end, which would
/// import half a file as if it were all of it), and closes the file when the last reader that
/// holds it goes, wherever the reading stopped.
///
/// A class so that the readers, which are values copied in and out of enums as they go, share
/// one descriptor and close it once. Not `Sendable`: one import reads it on one task.
final class FileChunkReader {
    private let fd: Int32
    private let path: String
    /// The file's size in bytes when it was opened.
    let size: Int
    /// The bytes read so far.
    private(set) var bytesRead = 0
    private var ended = false
    static let chunkSize = 65_536

    init(path: String) throws(FirebaseExportImport.Refused) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FirebaseExportImport.Refused("cannot open \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
    }

    deinit { close(fd) }

    /// The next piece of the file (never empty), or nil at its end.
    func next() throws(FirebaseExportImport.Refused) -> [UInt8]? {
        guard !ended else { return nil }
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var n: Int
        repeat { n = read(fd, &chunk, chunk.count) } while n < 0 && errno == EINTR
        guard n >= 0 else { throw FirebaseExportImport.Refused("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard n > 0 else {
            ended = true
            return nil
        }
        chunk.removeSubrange(n...)
        bytesRead += n
        return chunk
    }
}
