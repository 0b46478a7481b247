// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Reads one JSON object of the config, knowing its key path, and refuses unknown keys.
struct ConfigReader {
    let doc: EJSONDocument
    let path: String
    private(set) var seen: Set<String> = []

    init(_ value: EJSON, path: String) throws(ConfigError) {
        guard case .document(let d) = value else {
            throw ConfigError(key: path, reason: "expected an object, got \(value.typeName)")
        }
        self.doc = d
        self.path = path
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The raw value, or nil when absent or JSON null.
    mutating func value(_ key: String) -> EJSON? {
        seen.insert(key)
        guard let v = doc[key], v != .null else { return nil }
        return v
    }

    mutating func bool(_ key: String, default fallback: Bool) throws(ConfigError) -> Bool {
        guard let v = value(key) else { return fallback }
        guard case .bool(let b) = v else { throw mismatch(key, "a boolean", v) }
        return b
    }

    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else { throw mismatch(key, "a string", v) }
        return s
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws(ConfigError) -> Int64? {
        guard let v = value(key) else { return nil }
        guard let n = v.integerValue else { throw mismatch(key, "an integer", v) }
        guard range.contains(n) else {
            throw ConfigError(key: keyPath(key), reason: "must be between \(range.lowerBound) and \(range.upperBound), got \(n)")
        }
        return n
    }

    mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let v = value(key) else { return nil }
        if case .string(let s) = v { return [s] }
        // `{}` too: an empty Lua table (a script's `auth.dev.config`) converts to one.
        if case .document(let d) = v, d.isEmpty { return [] }
        guard case .array(let items) = v else { throw mismatch(key, "an array of strings", v) }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else { throw mismatch("\(key)[\(i)]", "a string", item) }
            out.append(s)
        }
        return out
    }

    /// Throws for the first key that was never read.
    func finish() throws(ConfigError) {
        for key in doc.keys where !seen.contains(key) {
            throw ConfigError(key: keyPath(key), reason: "unknown key")
        }
    }

    func mismatch(_ key: String, _ expected: String, _ got: EJSON) -> ConfigError {
        ConfigError(key: keyPath(key), reason: "expected \(expected), got \(got.typeName)")
    }
}
