// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import CommandSupport
#if canImport(Glibc)
    import Glibc
#endif

/// A secret of the config file: a string, `{"env": "NAME"}` (read from the environment at
/// start-up) or `{"file": "PATH"}` (the file's text, without a trailing newline), so that a
/// secret never has to sit in the config file.
public struct ConfigSecret: Sendable, Equatable {
    /// The secret itself.
    public var value: String
    /// The form written in the config: the dev API shows this, so an `env` or `file` secret is
    /// never echoed.
    public var source: EJSON

    /// A secret given as text (code, tests, the dev identity provider).
    public init(_ value: String) {
        self.value = value
        self.source = .string(value)
    }

    /// Reads one of the three forms; a missing variable or file, or an empty secret, is a
    /// config error naming `key`.
    init(ejson: EJSON, key: String) throws(ConfigError) {
        source = ejson
        switch ejson {
        case .string(let s):
            value = s
        case .document(let d) where d.count == 1:
            if case .string(let name)? = d["env"] {
                guard let v = getenv(name) else {
                    throw ConfigError(key: key, reason: "environment variable \(name) is not set")
                }
                value = String(cString: v)
            } else if case .string(let path)? = d["file"] {
                value = try Self.readFile(path, key: key)
            } else {
                throw ConfigError(key: key, reason: "expected a string, {\"env\": NAME} or {\"file\": PATH}")
            }
        default:
            throw ConfigError(key: key, reason: "expected a string, {\"env\": NAME} or {\"file\": PATH}, got \(ejson.typeName)")
        }
        guard !value.isEmpty else { throw ConfigError(key: key, reason: "is empty") }
    }

    /// A secret file's text (at most 64 KiB), its last line break dropped.
    private static func readFile(_ path: String, key: String) throws(ConfigError) -> String {
        var bytes: [UInt8]
        do { bytes = try RegularFile.read(path, limit: 65_536) } catch { throw ConfigError(key: key, reason: "file \(error)") }
        if bytes.last == 10 { bytes.removeLast() }
        if bytes.last == 13 { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(key: key, reason: "file \(path) is not UTF-8 text")
        }
        return text
    }
}

extension ConfigReader {
    /// An optional secret (``ConfigSecret``).
    mutating func secret(_ key: String) throws(ConfigError) -> ConfigSecret? {
        guard let v = value(key) else { return nil }
        return try ConfigSecret(ejson: v, key: keyPath(key))
    }

    /// A list of secrets; a single one may be given without the array.
    mutating func secrets(_ key: String) throws(ConfigError) -> [ConfigSecret]? {
        guard let v = value(key) else { return nil }
        guard case .array(let items) = v else { return [try ConfigSecret(ejson: v, key: keyPath(key))] }
        var out: [ConfigSecret] = []
        for (i, item) in items.enumerated() { out.append(try ConfigSecret(ejson: item, key: keyPath("\(key)[\(i)]"))) }
        return out
    }
}
