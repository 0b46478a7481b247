// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc

/// A `firebase auth:export` file, JSON (`{"users": [...]}`) or CSV (one row a user, no header,
/// as firebase-tools' accountExporter writes it), read one user at a time as the Admin API's
/// `UserInfo` objects that ``FirebaseExportImport`` sends. Which it is, the first byte says.
enum FirebaseExportFile {
    case json(UsersArrayReader)
    case csv(CSVRecordReader)

    /// One user of the file: its object, or why its record is no user.
    enum Element {
        case user(EJSON)
        case invalid(String)
    }

    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FirebaseExportImport.Refused("cannot open \(path): \(String(cString: strerror(errno)))") }
        var head = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &head, head.count)
        close(fd)
        let first = head.prefix(max(n, 0)).first { ![32, 9, 10, 13, 0xEF, 0xBB, 0xBF].contains($0) }
        if first == UInt8(ascii: "{") || first == nil {
            self = .json(try UsersArrayReader(path: path))
        } else {
            self = .csv(try CSVRecordReader(path: path))
        }
    }

    var bytesRead: Int {
        switch self {
        case .json(let r): r.bytesRead
        case .csv(let r): r.bytesRead
        }
    }

    var size: Int {
        switch self {
        case .json(let r): r.size
        case .csv(let r): r.size
        }
    }

    /// The next user, or nil at the end of the file.
    mutating func next() throws -> Element? {
        switch self {
        case .json(var reader):
            defer { self = .json(reader) }
            guard let bytes = try reader.next() else { return nil }
            guard let user = try? EJSON(parsing: bytes), case .document = user else { return .invalid("not a JSON object") }
            return .user(user)
        case .csv(var reader):
            defer { self = .csv(reader) }
            guard let fields = try reader.next() else { return nil }
            return Self.user(csv: fields)
        }
    }

    /// Where firebase-tools' CSV puts each provider's `rawId`, `email`, `displayName` and
    /// `photoUrl` (accountExporter's PROVIDER_ID_INDEX_MAP).
    static let providerColumns: [(String, Int)] = [
        ("google.com", 7), ("facebook.com", 11), ("twitter.com", 15), ("github.com", 19), ("apple.com", 28), ("microsoft.com", 32),
        ("gc.apple.com", 36), ("playgames.google.com", 40), ("linkedin.com", 44), ("yahoo.com", 48),
    ]

    /// A CSV row as the `UserInfo` object of the JSON export: `localId`, `email`,
    /// `emailVerified`, `passwordHash`, `salt`, `displayName`, `photoUrl`, the providers'
    /// columns, `createdAt`, `lastLoginAt`, `phoneNumber`, `disabled`, `customAttributes`.
    static func user(csv f: [String]) -> Element {
        guard f.count >= 27 else {
            return .invalid("a row of firebase auth:export's CSV has at least 27 fields, this one \(f.count)")
        }
        func at(_ i: Int) -> EJSON? { i < f.count && !f[i].isEmpty ? .string(f[i]) : nil }
        var d: EJSONDocument = [:]
        for (key, i) in [
            ("localId", 0), ("email", 1), ("passwordHash", 3), ("salt", 4), ("displayName", 5), ("photoUrl", 6), ("createdAt", 23),
            ("lastLoginAt", 24), ("phoneNumber", 25), ("customAttributes", 27),
        ] {
            if let value = at(i) { d[key] = value }
        }
        for (key, i) in [("emailVerified", 2), ("disabled", 26)] {
            switch f[i] {
            case "true": d[key] = true
            case "false", "": d[key] = false
            default: return .invalid("\(key) must be true or false")
            }
        }
        var providers: [EJSON] = []
        for (providerId, i) in providerColumns {
            guard let rawId = at(i) else { continue }
            var info: EJSONDocument = ["providerId": .string(providerId), "rawId": rawId]
            for (key, offset) in [("email", 1), ("displayName", 2), ("photoUrl", 3)] {
                if let value = at(i + offset) { info[key] = value }
            }
            providers.append(.document(info))
        }
        d["providerUserInfo"] = .array(providers)
        return .user(.document(d))
    }
}
