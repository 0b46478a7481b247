// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The admin API's keys (config `adminKeys`: `[{"name": "ops", "key": {"env": "..."}}]`).
/// None configured: the admin API and page do not exist (404).
///
/// Only each key's SHA-256 is kept. A presented key is hashed and compared with every key's
/// digest in constant time, all of them every time, so neither a key's length nor how much of
/// it matched, nor which key it came close to, shows in the time taken.
public struct AdminKeys: Sendable, Equatable {
    struct Key: Sendable, Equatable {
        var name: String
        var digest: [UInt8]
    }

    private(set) var keys: [Key] = []

    /// Keys shorter than this are refused: they are the only thing between the internet and
    /// every account, and there is no lockout (one would let anyone lock the operators out).
    public static let minimumLength = 32

    public var isEmpty: Bool { keys.isEmpty }

    /// A new random key: 64 hex digits (256 bits).
    public static func randomKey() -> String { Secrets.randomHex(bytes: 32) }

    public init() {}

    /// Keys given in code (tests): name and key.
    public init(_ pairs: [(name: String, key: String)]) throws(ConfigError) {
        for (i, pair) in pairs.enumerated() { try add(name: pair.name, key: pair.key, path: "adminKeys[\(i)]") }
    }

    init(ejson: EJSON) throws(ConfigError) {
        guard case .array(let items) = ejson else {
            throw ConfigError(key: "adminKeys", reason: "expected an array of {\"name\": ..., \"key\": ...}, got \(ejson.typeName)")
        }
        for (i, item) in items.enumerated() {
            let path = "adminKeys[\(i)]"
            var r = try ConfigReader(item, path: path)
            guard let name = try r.string("name") else { throw ConfigError(key: path + ".name", reason: "missing") }
            guard let key = r.value("key") else { throw ConfigError(key: path + ".key", reason: "missing") }
            try add(name: name, key: try ConfigSecret(ejson: key, key: path + ".key").value, path: path)
            try r.finish()
        }
    }

    private mutating func add(name: String, key: String, path: String) throws(ConfigError) {
        guard !name.isEmpty, name.utf8.count <= 64,
            name.utf8.allSatisfy({ $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
        else { throw ConfigError(key: path + ".name", reason: "1 to 64 ASCII letters, digits, '_' and '-'") }
        guard !keys.contains(where: { $0.name == name }) else {
            throw ConfigError(key: path + ".name", reason: "\"\(name)\" is used twice")
        }
        guard key.count >= Self.minimumLength else {
            throw ConfigError(key: path + ".key", reason: "must be at least \(Self.minimumLength) characters (openssl rand -hex 32 makes one)")
        }
        let digest = Secrets.digest(key)
        guard !keys.contains(where: { $0.digest == digest }) else {
            throw ConfigError(key: path + ".key", reason: "the same key as another admin key")
        }
        keys.append(Key(name: name, digest: digest))
    }

    /// The name of the key `presented` is, or nil. Takes the same time whatever is presented.
    func name(of presented: String) -> String? {
        let digest = Secrets.digest(presented)
        var found: String?
        for key in keys where Secrets.constantTimeEqual(key.digest, digest) { found = key.name }
        return found
    }
}
