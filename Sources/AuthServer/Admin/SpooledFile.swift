import AuthProtocol
import Foundation
import Hummingbird

/// A request body written to a private temporary file (0600, removed on ``remove()``), and
/// read back line by line: an import is read twice (checked whole, then written) in constant
/// memory whatever its size.
final class SpooledFile: Sendable {
    let path: String
    let size: Int

    /// Writes `body` to a new temporary file; more than `limit` bytes is refused (413).
    init(_ body: Hummingbird.RequestBody, limit: Int) async throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/authsh-import-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw ServiceError(.internalServerError, "cannot make a temporary file for the import") }
        path = String(cString: template)
        var failure: (any Error)?
        var size = 0
        do {
            for try await buffer in body {
                size += buffer.readableBytes
                guard size <= limit else { throw ServiceError(.payloadTooLarge, "an import is at most \(limit >> 20) MiB") }
                try buffer.withUnsafeReadableBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                        guard n > 0 else { throw ServiceError(.internalServerError, "cannot write the import's temporary file") }
                        offset += n
                    }
                }
            }
        } catch {
            failure = error
        }
        close(fd)
        self.size = size
        if let failure {
            unlink(path)
            throw failure
        }
    }

    func remove() { unlink(path) }

    /// Calls `body` with each line (without its newline; a last line without one too) and its
    /// number from 1. A line longer than `maxLine` is passed as nil. `read` is told how many
    /// bytes were read so far, after each chunk.
    func eachLine(maxLine: Int, read progress: (Int) -> Void = { _ in },
                  _ body: (Int, ArraySlice<UInt8>?) async throws -> Void) async throws {
        var done = 0
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ServiceError(.internalServerError, "cannot read the import's temporary file") }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        var tooLong = false
        var number = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n >= 0 else { throw ServiceError(.internalServerError, "cannot read the import's temporary file") }
            if n == 0 { break }
            done += n
            defer { progress(done) }
            var start = 0
            for i in 0..<n where chunk[i] == 10 {
                number += 1
                if tooLong || pending.count + (i - start) > maxLine {
                    try await body(number, nil)
                } else if pending.isEmpty {
                    try await body(number, chunk[start..<i])
                } else {
                    pending += chunk[start..<i]
                    try await body(number, pending[...])
                }
                pending.removeAll(keepingCapacity: true)
                tooLong = false
                start = i + 1
            }
            if start < n {
                if pending.count + (n - start) > maxLine { tooLong = true } else { pending += chunk[start..<n] }
            }
        }
        if tooLong || !pending.isEmpty {
            number += 1
            try await body(number, tooLong ? nil : pending[...])
        }
    }
}
