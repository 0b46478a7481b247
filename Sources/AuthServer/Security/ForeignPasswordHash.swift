// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A password hash as another system exports it, and the form authsh stores it in
/// (``PasswordHasher/verifyNow(_:_:)`` reads only stored forms):
///
/// - PHC and `crypt(3)` strings as they are: Argon2 (`$argon2id$`, `$argon2i$`, `$argon2d$`,
///   version 19), bcrypt, SHA-crypt, MD5-crypt (``CryptHash``), and the forms of
///   ``ImportedPasswordHash``;
/// - Django's (`django.contrib.auth.hashers`): `pbkdf2_sha256$ITERATIONS$SALT$HASH` and
///   `pbkdf2_sha1$...` as PBKDF2 with the salt's UTF-8 bytes, `argon2$argon2id$...` as its PHC
///   string, `bcrypt$$2b$...` as its bcrypt hash, `bcrypt_sha256$$2b$...` (bcrypt of the
///   password's hex SHA-256) as `$bcrypt-sha256$2b$...` (``CryptHash``).
enum ForeignPasswordHash {
    /// The stored form of `text`, or nil when it is no hash authsh verifies. Says nothing of
    /// its cost: ``PasswordHasher/isWithinCostLimits(_:)`` does.
    static func stored(_ text: String) -> String? {
        if text.hasPrefix("$") {
            if Argon2Hash(text) != nil || CryptHash(text) != nil || ImportedPasswordHash(text) != nil { return text }
            return nil
        }
        if text.hasPrefix("argon2$$argon2") || text.hasPrefix("argon2$argon2") {
            let phc = String(text.drop { $0 != "$" }.drop { $0 == "$" })
            return Argon2Hash("$" + phc) != nil ? "$" + phc : nil
        }
        if text.hasPrefix("bcrypt_sha256$") {
            let rest = String(text.dropFirst(14))
            return CryptHash(rest)?.scheme == .bcrypt ? CryptHash.sha256Prefix + rest : nil
        }
        if text.hasPrefix("bcrypt$") {
            let rest = String(text.dropFirst(7))
            return CryptHash(rest)?.scheme == .bcrypt ? rest : nil
        }
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        if fields.count == 4, fields[0] == "pbkdf2_sha256" || fields[0] == "pbkdf2_sha1", fields[1].utf8.count <= 9,
            let rounds = Int(fields[1]), !fields[2].isEmpty, !fields[2].contains("$"), let hash = Base64.decode(String(fields[3]))
        {
            return ImportedPasswordHash.pbkdf2(
                fields[0] == "pbkdf2_sha1" ? .sha1 : .sha256, rounds: rounds, salt: Array(fields[2].utf8), hash: hash
            ).encoded
        }
        return nil
    }
}

/// An Argon2 PHC string of version 19 (`$argon2id$v=19$m=M,t=T,p=P$SALT$HASH`, and `argon2i`,
/// `argon2d`): its variant and parameters, for the cost check; libargon2 verifies it.
struct Argon2Hash: Equatable, Sendable {
    enum Variant: String, Sendable { case argon2id, argon2i, argon2d }
    let variant: Variant
    let memoryKiB: UInt64
    let iterations: UInt64
    let parallelism: UInt64

    init?(_ text: String) {
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, let variant = Variant(rawValue: String(fields[1])), fields[2] == "v=19" else {
            return nil
        }
        var values: [Substring: UInt64] = [:]
        for pair in fields[3].split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1].utf8.count <= 10, let value = UInt64(parts[1]), values[parts[0]] == nil else { return nil }
            values[parts[0]] = value
        }
        guard values.count == 3, let m = values["m"], let t = values["t"], let p = values["p"], !fields[4].isEmpty, !fields[5].isEmpty
        else { return nil }
        self.variant = variant
        memoryKiB = m
        iterations = t
        parallelism = p
    }
}
