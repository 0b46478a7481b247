// SPDX-License-Identifier: Apache-2.0
import CommandSupport
import AsyncHTTPClient
import AuthProtocol
import Glibc
import NIOCore

/// Export and import (NDJSON) through the admin API, streamed both ways: memory stays flat
/// whatever the number of users.
extension AdminClient {
    /// What an export wrote.
    public struct ExportResult: Sendable {
        public var users: Int
        public var accounts: Int
    }

    /// How far a transfer is: lines (export) or bytes (import) done, of a total when known.
    public struct Progress: Sendable {
        public var phase: String
        public var done: Int
        public var total: Int?
        public init(phase: String, done: Int, total: Int?) {
            self.phase = phase
            self.done = done
            self.total = total
        }
    }

    /// Writes every user of the app to `path` (`-`: standard output), one JSON object per line.
    /// The file is made 0600 (it holds password hashes) and appears only whole: it is written
    /// beside `path` and renamed once the server's end line has arrived and its counts agree.
    public func export(to path: String, progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws -> ExportResult {
        let base = try await resolvedServer()
        var request = HTTPClientRequest(url: "\(base)/api/admin/v1/apps/\(Self.escape(app))/export")
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        let response = try await AsyncHTTPTransport.sharedClient.execute(request, timeout: .hours(6))
        guard response.status.code == 200 else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw failure(Int(response.status.code), Array(buffer: body))
        }
        let total = response.headers.first(name: "X-Export-Users").flatMap { Int($0) }
        // A new file of a name nobody can guess, made by this call (mkstemp: O_EXCL, 0600): a
        // name fixed in advance could be made first by another user of the directory (to read
        // the hashes) or be a symbolic link (to overwrite what it points to).
        var temporary: String?
        var fd: Int32 = 1
        if path != "-" {
            var template = Array((path + ".partial-XXXXXX").utf8CString)
            fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
            guard fd >= 0 else { throw AuthClientError(code: "ExportFailed", message: "cannot write \(path): \(String(cString: strerror(errno)))") }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        var finished = false
        defer {
            if let temporary {
                close(fd)
                if !finished { unlink(temporary) }
            }
        }
        var lines = 0
        // The last complete line, for the end check, and what came after it.
        var last: [UInt8] = [], tail: [UInt8] = []
        for try await buffer in response.body {
            let bytes = Array(buffer.readableBytesView)
            try Self.writeAll(fd, bytes, path: path)
            var start = 0
            for i in bytes.indices where bytes[i] == 10 {
                lines += 1
                if i - start < 4096 { last = tail + bytes[start..<i] } else { last = [] }
                tail = []
                start = i + 1
            }
            if tail.count < 4096 { tail += bytes[start...].prefix(4096) }
            progress(Progress(phase: "export", done: lines, total: total.map { $0 + 1 }))
        }
        guard case .document(let end)? = (try? EJSON(parsing: last))?["end"],
            let users = end["users"]?.integerValue, let accounts = end["accounts"]?.integerValue,
            Int(users + accounts) + 1 == lines
        else {
            throw AuthClientError(
                code: "ExportFailed", message: "the export was cut short (no end line after \(lines) lines); \(path) was not written")
        }
        if let temporary {
            guard fsync(fd) == 0, rename(temporary, path) == 0 else {
                throw AuthClientError(code: "ExportFailed", message: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        finished = true
        return ExportResult(users: Int(users), accounts: Int(accounts))
    }

    /// Sends `path` to the server's import; returns its report (`imported`, `skipped`,
    /// `rejectedCount`, `rejected`: `[{line, reason}]`). A report with `error` (lines rejected
    /// without `continueOnError`: nothing was imported) is thrown as an ``AuthClientError``
    /// whose details hold it. With `check`, every line is checked and nothing written
    /// (`imported` counts what would be).
    public func importFile(
        _ path: String, continueOnError: Bool, check: Bool = false,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> EJSON {
        let (fd, info): (Int32, stat)
        do { (fd, info) = try RegularFile.open(path) } catch { throw AuthClientError(code: "ImportFailed", message: error.description) }
        let size = Int(info.st_size)
        let base = try await resolvedServer()
        var request = HTTPClientRequest(
            url: "\(base)/api/admin/v1/apps/\(Self.escape(app))/import?progress=true"
                + (continueOnError ? "&continueOnError=true" : "") + (check ? "&check=true" : ""))
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Content-Type", value: "application/x-ndjson")
        request.body = .stream(FileChunks(fd: fd, size: size, progress: progress), length: .known(Int64(size)))
        let response = try await AsyncHTTPTransport.sharedClient.execute(request, timeout: .hours(6))
        guard response.status.code == 200 else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw failure(Int(response.status.code), Array(buffer: body))
        }
        // Progress lines, then the report.
        var pending: [UInt8] = []
        var report: EJSON?
        for try await buffer in response.body {
            pending += buffer.readableBytesView
            while let newline = pending.firstIndex(of: 10) {
                let line = (try? EJSON(parsing: Array(pending[..<newline]))) ?? .null
                pending.removeSubrange(...newline)
                if let r = line["report"] { report = r }
                if let phase = line["phase"]?.stringValue, let bytes = line["bytes"]?.integerValue {
                    progress(Progress(phase: phase, done: Int(bytes), total: line["of"]?.integerValue.map(Int.init)))
                }
            }
        }
        guard let report else { throw AuthClientError(code: "ImportFailed", message: "the server's answer ended before its report") }
        if let message = report["error"]?.stringValue {
            var error = AuthClientError(code: report["error_code"]?.stringValue ?? "ImportFailed", message: message, status: 200)
            if case .document(let d) = report { error.details = d }
            throw error
        }
        progress(Progress(phase: "done", done: size, total: size))
        return report
    }

    private func failure(_ status: Int, _ body: [UInt8]) -> AuthClientError {
        if let parsed = try? EJSON(parsing: body), let error = ServiceError(body: parsed, status: status) { return AuthClientError(error) }
        return AuthClientError(
            code: status == 404 ? "NotFound" : AuthClientError.malformedResponse,
            message: "\(server) answered \(status)\(status == 404 ? " (no admin API: no adminKeys configured?)" : "")",
            status: status)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw AuthClientError(code: "ExportFailed", message: "cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += n
        }
    }
}

/// A file's bytes as a request body, 1 MiB at a time, closing the file at its end.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let fd: Int32
    let size: Int
    let progress: @Sendable (AdminClient.Progress) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let fd: Int32
        let size: Int
        let progress: @Sendable (AdminClient.Progress) -> Void
        var sent = 0

        mutating func next() async throws -> ByteBuffer? {
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else {
                close(fd)
                return nil
            }
            sent += n
            progress(AdminClient.Progress(phase: "upload", done: sent, total: size))
            return ByteBuffer(bytes: chunk[..<n])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(fd: fd, size: size, progress: progress) }
}
