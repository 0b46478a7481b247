// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Glibc

/// `authsh admin import --from firebase FILE --hash-config FILE [--check]`: the users of a
/// `firebase auth:export` file (JSON or CSV, ``FirebaseExportFile``), sent to the admin API a thousand at a time
/// (`import/firebase`), each verified at its first login with the project's password hash
/// parameters and then rehashed to Argon2id. The file is read a piece at a time (one user in
/// memory at a time, at most 1 MiB each), so a million users import in bounded memory.
enum FirebaseExportImport {
    /// The console's `hash_config { ... }` block as the Admin API's `batchCreate` fields.
    /// `Refused` names what is wrong.
    static func hashFields(_ text: String) throws(Refused) -> EJSONDocument {
        var body = Substring(text)
        if let open = body.firstIndex(of: "{") {
            guard body[..<open].trimmingCharacters(in: .whitespacesAndNewlines) == "hash_config",
                let close = body.lastIndex(of: "}"), close > open
            else { throw Refused("the hash config must be the console's hash_config { ... } block") }
            body = body[body.index(after: open)..<close]
        }
        let names: [String: String] = [
            "algorithm": "hashAlgorithm", "base64_signer_key": "signerKey", "base64_salt_separator": "saltSeparator",
            "rounds": "rounds", "mem_cost": "memoryCost",
        ]
        var fields: EJSONDocument = [:]
        for line in body.split(whereSeparator: { $0 == "\n" || $0 == "," }) {
            let item = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !item.isEmpty else { continue }
            guard let colon = item.firstIndex(of: ":") else { throw Refused("hash config: '\(item.prefix(40))' is no 'key: value'") }
            let key = item[..<colon].trimmingCharacters(in: .whitespaces)
            let value = item[item.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard let name = names[key] else { throw Refused("hash config: unknown key '\(key.prefix(40))'") }
            if name == "rounds" || name == "memoryCost" {
                guard let number = Int64(value) else { throw Refused("hash config: \(key) must be a number") }
                fields[name] = .int64(number)
            } else {
                fields[name] = .string(value)
            }
        }
        guard fields["hashAlgorithm"] != nil else { throw Refused("hash config: no algorithm") }
        return fields
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Sends the users of `path` in batches; returns the summed answers, each rejection's
    /// `index` the user's position in the file (from 0).
    static func run(
        _ client: AdminClient, path: String, hash: EJSONDocument, check: Bool, progress: @escaping (AdminClient.Progress) -> Void
    ) async throws -> (imported: Int, skipped: Int, rejected: [(index: Int, reason: String)]) {
        var reader = try FirebaseExportFile(path: path)
        var imported = 0, skipped = 0, seen = 0
        var rejected: [(Int, String)] = []
        var batch: [EJSON] = []
        func send() async throws {
            guard !batch.isEmpty else { return }
            var body = hash
            body["users"] = .array(batch)
            body["check"] = .bool(check)
            let answer = try await client.importFirebaseBatch(body)
            imported += Int(answer["imported"]?.integerValue ?? 0)
            skipped += Int(answer["skipped"]?.integerValue ?? 0)
            for r in answer["rejected"]?.arrayValue ?? [] {
                rejected.append((seen - batch.count + Int(r["index"]?.integerValue ?? 0), r["reason"]?.stringValue ?? ""))
            }
            batch.removeAll(keepingCapacity: true)
        }
        while let element = try reader.next() {
            seen += 1
            guard case .user(let user) = element else {
                if case .invalid(let why) = element { rejected.append((seen - 1, why)) }
                continue
            }
            batch.append(user)
            if batch.count == 1000 {
                try await send()
                progress(AdminClient.Progress(phase: check ? "check" : "import", done: reader.bytesRead, total: reader.size))
            }
        }
        try await send()
        return (imported, skipped, rejected)
    }
}

/// The elements of the users array of an export of one JSON object (`firebase auth:export`'s
/// `{"users": [{...}, {...}]}`, a Keycloak realm's `users`, Cognito's `Users`), one at a time,
/// read 64 KiB at a time: a small scanner that knows strings and nesting, so that each user's
/// bytes are handed over whole for the JSON parser. Written here because the file holds a
/// million users and no parser in use streams.
struct UsersArrayReader {
    private let file: FileChunkReader
    var size: Int { file.size }
    var bytesRead: Int { file.bytesRead }
    private var buffer: [UInt8] = []
    private var position = 0
    private var depth = 0
    private var inString = false, escaped = false
    /// The last string seen in the top-level object (its keys), and whether the array is the users'.
    private var key: [UInt8] = [], readingKey = false, inUsers = false, sawUsers = false
    private var element: [UInt8] = []
    /// The top-level key of the users array, and what to say when the file has none.
    private let arrayKey: [UInt8], missing: String
    static let elementLimit = 1 << 20

    init(
        path: String, key: String = "users",
        missing: String = "no \"users\" array: the file is no firebase auth:export JSON"
    ) throws {
        arrayKey = Array(key.utf8)
        self.missing = missing
        file = try FileChunkReader(path: path)
    }

    /// The next user's bytes, or nil at the end of the array.
    mutating func next() throws -> [UInt8]? {
        while true {
            if position == buffer.count {
                guard let chunk = try file.next() else {
                    guard depth == 0 else { throw FirebaseExportImport.Refused("the export ends in the middle of its JSON") }
                    guard sawUsers else { throw FirebaseExportImport.Refused(missing) }
                    return nil
                }
                buffer = chunk
                position = 0
            }
            let c = buffer[position]
            position += 1
            let capturing = inUsers && depth >= 3
            if capturing || (inUsers && depth == 2 && c == UInt8(ascii: "{")) {
                element.append(c)
                guard element.count <= Self.elementLimit else { throw FirebaseExportImport.Refused("a user is over 1 MiB of JSON") }
            }
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                    readingKey = false
                } else if readingKey {
                    key.append(c)
                }
                continue
            }
            switch c {
            case UInt8(ascii: "\""):
                inString = true
                if depth == 1 {
                    readingKey = true
                    key = []
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 1, c == UInt8(ascii: "["), key == arrayKey {
                    inUsers = true
                    sawUsers = true
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                guard depth >= 0 else { throw FirebaseExportImport.Refused("the export's JSON closes more than it opens") }
                if inUsers, depth == 2, c == UInt8(ascii: "}") {
                    defer { element = [] }
                    return element
                }
                if inUsers, depth == 1 { inUsers = false }
            default:
                break
            }
        }
    }
}
