// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import AuthServer
import Glibc

/// `authsh admin import --from keycloak|supabase|auth0|cognito FILE [--passwords FILE]`: each
/// user of the export turned into a line of authsh's own import (``ForeignExport``), written to
/// a private temporary file (mode 0600, removed after), which the import then checks and writes
/// as it does authsh's exports: the same checks, `--check`, `--continue-on-error`, and users
/// whose id the app has skipped, so that the same file twice changes nothing. The export is
/// read one user at a time; Auth0's password file is held in memory while the users are read.
enum ForeignExportImport {
    /// What reading the export found: the temporary file of authsh lines, each line's user
    /// (its position in the export, from 0), the users refused while reading and those left
    /// out on purpose (each with why).
    struct Converted {
        var path: String
        var users: [Int] = []
        var refused: [(user: Int, reason: String)] = []
        var leftOut: [(user: Int, reason: String)] = []
        var read = 0
    }

    /// Reads the export at `path` (and Auth0's `passwords` file) into a temporary file of
    /// authsh's import; the caller removes `Converted.path`.
    static func convert(
        _ format: ForeignExport, path: String, passwords: String?, now: Int64, progress: (AdminClient.Progress) -> Void
    ) throws -> Converted {
        var hashes: Auth0Passwords?
        if let passwords {
            var table = Auth0Passwords()
            var reader = try JSONLinesReader(path: passwords)
            var n = 0
            while let line = try reader.next() {
                n += 1
                guard case .document(let d)? = try? EJSON(parsing: line) else {
                    throw FirebaseExportImport.Refused("\(passwords) line \(n): not a JSON object")
                }
                do { try table.add(d) } catch { throw FirebaseExportImport.Refused("\(passwords) line \(n): \(error)") }
            }
            hashes = table
        }
        var template = Array("\(ProcessInfoLite.temporaryDirectory)/authsh-import-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FirebaseExportImport.Refused("cannot make a temporary file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var converted = Converted(path: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        var out: [UInt8] = []
        func flush() throws {
            var written = 0
            while written < out.count {
                let n = out.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, out.count - written) }
                guard n > 0 else {
                    throw FirebaseExportImport.Refused("cannot write \(converted.path): \(String(cString: strerror(errno)))")
                }
                written += n
            }
            out.removeAll(keepingCapacity: true)
        }
        func take(_ bytes: [UInt8]) throws {
            let index = converted.read
            converted.read += 1
            guard case .document(let record)? = try? EJSON(parsing: bytes) else {
                converted.refused.append((index, "not a JSON object"))
                return
            }
            var why: String?
            do {
                guard let user = try format.user(record, now: now, passwords: hashes, leftOut: &why) else {
                    converted.leftOut.append((index, why ?? "left out"))
                    return
                }
                out += EJSON.document(user.line).encoded(.relaxed) + [10]
                converted.users.append(index)
                if out.count >= 1 << 16 { try flush() }
            } catch let refused as ForeignExport.Refused {
                converted.refused.append((index, refused.description))
            }
        }
        if let key = format.usersKey {
            var reader = try UsersArrayReader(path: path, key: key, missing: "no \"\(key)\" array: the file is no \(format.rawValue) export")
            while let element = try reader.next() {
                try take(element)
                if converted.read % 1000 == 0 { progress(AdminClient.Progress(phase: "read", done: reader.bytesRead, total: reader.size)) }
            }
        } else {
            var reader = try JSONLinesReader(path: path)
            while let line = try reader.next() {
                try take(line)
                if converted.read % 1000 == 0 { progress(AdminClient.Progress(phase: "read", done: reader.bytesRead, total: reader.size)) }
            }
        }
        try flush()
        return converted
    }
}

/// The directory for temporary files: `$TMPDIR`, or `/tmp`.
enum ProcessInfoLite {
    static var temporaryDirectory: String {
        if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/tmp"
    }
}
