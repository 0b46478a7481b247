// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc

/// Where an app's users are kept between runs: one small file per user, and one naming the
/// current user, in `<storage>/users/<server>/<app id>/`.
///
/// - A file holds a user's state, tokens (secrets: files are 0600, directories 0700), device
///   id, profile and identities. A login writes that user's file (about 2 KB) and the one
///   naming the current user, not the whole store.
/// - Writes are atomic: a temporary file, fsync, rename, fsync of the directory. A process
///   killed mid-write leaves the old file (and a stray temporary file, ignored).
/// - Changes run under an exclusive `flock` and re-read the user's file first, so two
///   processes sharing the store do not lose each other's updates.
/// - A file that does not parse is renamed `*.corrupt-<unix time>` and reported (at start-up
///   in `App.storeProblems`, later as a `ClientStoreFailed` error), never silently emptied; a
///   file that cannot be read is an error too, never taken for a missing user.
final class UserStore: Sendable {
    let directory: String

    /// Opens (creating) the store of `app` on `server` under `storage`.
    init(storage: String, server: String, app: String) throws(AuthClientError) {
        func safe(_ name: String) -> String {
            String(name.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        }
        // Its parents too: `~/.local/share` does not exist yet on a fresh account.
        var parent = storage.hasPrefix("/") ? "" : "."
        for component in storage.split(separator: "/") {
            parent += "/" + component
            try Self.makeDirectory(parent)
        }
        var path = storage
        for part in ["users", safe(server), safe(app)] {
            path += "/" + part
            try Self.makeDirectory(path)
        }
        directory = path
    }

    private static func makeDirectory(_ path: String) throws(AuthClientError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw failure("cannot create the user store directory \(path)")
        }
    }

    static func failure(_ message: String) -> AuthClientError {
        AuthClientError(code: AuthClientError.storeFailed, message: "\(message): \(String(cString: strerror(errno)))")
    }

    private func file(_ id: String) -> String { "\(directory)/\(id).json" }

    /// Every user on disk and the current user; files that do not parse are set aside.
    func load() -> (table: UserTable, problems: [String]) {
        var records: [UserRecord] = []
        var problems: [String] = []
        for name in Self.list(directory) where name.hasSuffix(".json") {
            let id = String(name.dropLast(5))
            do throws(AuthClientError) {
                if let record = try record(id) { records.append(record) }
            } catch {
                problems.append(error.message)
            }
        }
        var table = UserTable()
        for record in records.sorted(by: { $0.seq < $1.seq }) { table[record.id] = record }
        if let bytes = try? Self.read("\(directory)/current") {
            let id = String(decoding: bytes, as: UTF8.self)
            table.currentId = table.records[id] == nil ? nil : id
        }
        return (table, problems)
    }

    /// Under the lock: re-reads user `id`, applies `change`, writes the result (nil deletes).
    func update(_ id: String, _ change: (inout UserRecord?) -> Void) throws(AuthClientError) -> UserRecord? {
        try locked { () throws(AuthClientError) -> UserRecord? in
            var record = try record(id)
            change(&record)
            if let record {
                try Self.writeAtomically(Self.encode(record), to: file(id), directory: directory)
            } else if unlink(file(id)) != 0 && errno != ENOENT {
                throw Self.failure("cannot remove \(file(id))")
            }
            return record
        }
    }

    /// Names the current user (nil: none).
    func setCurrent(_ id: String?) throws(AuthClientError) {
        try locked { () throws(AuthClientError) in
            try Self.writeAtomically(Array((id ?? "").utf8), to: "\(directory)/current", directory: directory)
        }
    }

    private func locked<R>(_ body: () throws(AuthClientError) -> R) throws(AuthClientError) -> R {
        let fd = open("\(directory)/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot open the user store lock") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure("cannot lock the user store") }
        }
        return try body()
    }

    /// User `id` as its file holds it; nil when there is no file. A file that does not parse
    /// is set aside, and that is the error.
    private func record(_ id: String) throws(AuthClientError) -> UserRecord? {
        guard let bytes = try Self.read(file(id)) else { return nil }
        guard let record = Self.decode(bytes), record.id == id else {
            throw AuthClientError(code: AuthClientError.storeFailed, message: setAside(file(id)))
        }
        return record
    }

    private func setAside(_ path: String) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let target = "\(path).corrupt-\(now.tv_sec)"
        rename(path, target)
        return "\(path) could not be read and was moved to \(target)"
    }

    // MARK: Files

    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }

    /// A whole file, or nil when it does not exist; any other failure, or a file over 1 MiB
    /// (no user file comes near), is an error.
    static func read(_ path: String) throws(AuthClientError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("cannot read \(path)")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure("cannot read \(path)") }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            guard bytes.count <= 1 << 20 else {
                throw AuthClientError(code: AuthClientError.storeFailed, message: "\(path) is larger than 1 MiB")
            }
        }
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws(AuthClientError) {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot write \(temporary)") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                close(fd)
                unlink(temporary)
                throw failure("cannot write \(temporary)")
            }
            written += n
        }
        guard fsync(fd) == 0, close(fd) == 0 else {
            unlink(temporary)
            throw failure("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure("cannot replace \(path)")
        }
        let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }

    // MARK: Format

    static func encode(_ r: UserRecord) -> [UInt8] {
        var doc: EJSONDocument = [
            "version": 1, "id": .string(r.id), "seq": .int64(r.seq), "state": .string(r.state.rawValue),
            "deviceId": .string(r.deviceId), "profile": .document(r.profile.data),
            "identities": .array(r.identities.map(\.ejson)),
        ]
        if let a = r.accessToken { doc["accessToken"] = .string(a) }
        if let t = r.refreshToken { doc["refreshToken"] = .string(t) }
        if let p = r.providerTokens {
            var tokens = EJSONDocument()
            if let a = p.accessToken { tokens["accessToken"] = .string(a) }
            if let i = p.idToken { tokens["idToken"] = .string(i) }
            doc["providerTokens"] = .document(tokens)
        }
        return EJSON.document(doc).encoded(.canonical)
    }

    static func decode(_ bytes: [UInt8]) -> UserRecord? {
        guard case .document(let d)? = try? EJSON(parsing: bytes), d["version"]?.integerValue == 1,
            let id = d["id"]?.stringValue, let state = d["state"]?.stringValue.flatMap(User.State.init(rawValue:)),
            let device = d["deviceId"]?.stringValue, case .document(let profile)? = d["profile"],
            case .array(let identities)? = d["identities"]
        else { return nil }
        var record = UserRecord(
            id: id, state: state, accessToken: d["accessToken"]?.stringValue,
            refreshToken: d["refreshToken"]?.stringValue, deviceId: device,
            profile: UserProfile(data: profile),
            identities: identities.compactMap(UserIdentity.init))
        record.seq = d["seq"]?.integerValue ?? 0
        if case .document(let p)? = d["providerTokens"] {
            record.providerTokens = ProviderTokens(accessToken: p["accessToken"]?.stringValue, idToken: p["idToken"]?.stringValue)
        }
        return record
    }
}
