// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import Hummingbird

/// A request body written to a private temporary file, and read back line by line: an import
/// is read twice (checked whole, then written) in constant memory whatever its size.
///
/// The file has no name: it is unlinked as soon as it is made, and lives as long as this
/// object's descriptor. Nothing is left on disk however the request ends (a client gone
/// mid-answer, a crash), and no other process can open it.
final class SpooledFile: Sendable {
    private let fd: Int32
    let size: Int

    /// Writes `body` to a new temporary file; more than `limit` bytes is refused (413).
    init(_ body: Hummingbird.RequestBody, limit: Int) async throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/authsh-import-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw ServiceError(.internalServerError, "cannot make a temporary file for the import") }
        unlink(template)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        self.fd = fd
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
        self.size = size
        if let failure {
            close(fd)
            throw failure
        }
    }

    deinit { close(fd) }

    /// Calls `body` with each line (without its newline; a last line without one too) and its
    /// number from 1. A line longer than `maxLine` is passed as nil. `read` is told how many
    /// bytes were read so far, after each chunk.
    func eachLine(
        maxLine: Int, read progress: (Int) -> Void = { _ in },
        _ body: (Int, ArraySlice<UInt8>?) async throws -> Void
    ) async throws {
        var done = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        var tooLong = false
        var number = 0
        while true {
            // Positional reads: each pass reads from the start, whatever another did.
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(done)) }
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
