// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Crypto
import _CryptoExtras

/// A password hash brought from another system that authsh verifies once, at the user's next
/// login, and then replaces with its own Argon2id hash (``PasswordHasher``). Stored in the
/// password hash column as a PHC-like string that holds everything its check needs (base64
/// fields, standard alphabet):
///
/// - `$firebase-scrypt$r=ROUNDS,m=MEMCOST$SIGNERKEY$SALTSEPARATOR$SALT$HASH`: Firebase's
///   modified scrypt (firebase/scrypt): the scrypt key of the password and salt + separator
///   (N = 2^m, r = rounds, p = 1) encrypts the project's signer key with AES-256-CTR.
/// - `$scrypt$ln=LOGN,r=R,p=P$SALT$HASH`: standard scrypt (Firebase's `STANDARD_SCRYPT`).
/// - `$pbkdf2-sha1|sha256|sha512$i=ROUNDS$SALT$HASH`: PBKDF2, the key as long as the hash.
/// - `$hmac-sha1|sha256|sha512$o=ps|sp$KEY$SALT$HASH`: an HMAC of the password and the salt
///   (`ps`: password first, Firebase's default) or of the salt and the password (`sp`).
/// - `$salted-md5|sha1|sha256|sha512$r=ROUNDS,pf=0|1$SALT$HASH`: a digest of the salt and the
///   password (`pf=1`: the password first), Firebase's `MD5`, `SHA1`, `SHA256`, `SHA512`: one
///   round is the raw digest; MD5's round 0 its lowercase hex, as Firebase's own import
///   fixtures have it. More rounds are refused: how Firebase iterates them is not documented,
///   and a guess would lock the users out without a word.
///
/// The signer key of a Firebase scrypt hash is kept with each hash until its user logs in:
/// whoever reads the database can then test passwords against it, as with any hash.
/// Each has ``isWithinCostLimits``: an import may not make one login cost seconds or gigabytes.
enum ImportedPasswordHash: Equatable, Sendable {
    case firebaseScrypt(signerKey: [UInt8], saltSeparator: [UInt8], salt: [UInt8], rounds: Int, memoryCost: Int, hash: [UInt8])
    case scrypt(logN: Int, r: Int, p: Int, salt: [UInt8], hash: [UInt8])
    case pbkdf2(Digest, rounds: Int, salt: [UInt8], hash: [UInt8])
    case hmac(Digest, key: [UInt8], salt: [UInt8], passwordFirst: Bool, hash: [UInt8])
    case salted(SaltedDigest, rounds: Int, passwordFirst: Bool, salt: [UInt8], hash: [UInt8])

    /// The digests PBKDF2 and HMAC hashes use.
    enum Digest: String, Sendable, CaseIterable {
        case sha1, sha256, sha512
    }

    /// The digests of salted hashes (Firebase's `MD5`, `SHA1`, `SHA256`, `SHA512`).
    enum SaltedDigest: String, Sendable, CaseIterable {
        case md5, sha1, sha256, sha512
    }

    /// The most a hash may cost: scrypt's 128 × r × N × p bytes of work up to 256 MiB, PBKDF2
    /// up to a million rounds; salts, keys and hashes of sane sizes.
    enum CostLimits {
        static let scryptWorkBytes = 256 << 20
        static let pbkdf2Rounds = 1_000_000
        static let hashBytes = 16...128
        static let fieldBytes = 0...1024
    }

    // MARK: reading and writing

    /// The hash a stored string holds, or nil when it is none of these forms.
    init?(_ stored: String) {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 5, fields[0].isEmpty else { return nil }
        let parameters = Self.parameters(fields[2])
        let data = fields[3...].map { Base64.decode(String($0)) }
        guard let parameters, data.allSatisfy({ $0 != nil }) else { return nil }
        let bytes = data.map { $0! }
        switch fields[1] {
        case "firebase-scrypt":
            guard bytes.count == 4, parameters.count == 2, let r = parameters["r"], let m = parameters["m"] else { return nil }
            self = .firebaseScrypt(signerKey: bytes[0], saltSeparator: bytes[1], salt: bytes[2], rounds: r, memoryCost: m, hash: bytes[3])
        case "scrypt":
            guard bytes.count == 2, parameters.count == 3, let ln = parameters["ln"], let r = parameters["r"], let p = parameters["p"]
            else { return nil }
            self = .scrypt(logN: ln, r: r, p: p, salt: bytes[0], hash: bytes[1])
        case let name where name.hasPrefix("pbkdf2-"):
            guard let digest = Digest(rawValue: String(name.dropFirst(7))), bytes.count == 2, parameters.count == 1,
                let rounds = parameters["i"]
            else { return nil }
            self = .pbkdf2(digest, rounds: rounds, salt: bytes[0], hash: bytes[1])
        case let name where name.hasPrefix("salted-"):
            guard let digest = SaltedDigest(rawValue: String(name.dropFirst(7))), bytes.count == 2, parameters.count == 2,
                let rounds = parameters["r"], let order = parameters["pf"], order == 0 || order == 1
            else { return nil }
            self = .salted(digest, rounds: rounds, passwordFirst: order == 1, salt: bytes[0], hash: bytes[1])
        case let name where name.hasPrefix("hmac-"):
            let order = fields[2]
            guard let digest = Digest(rawValue: String(name.dropFirst(5))), bytes.count == 3, order == "o=ps" || order == "o=sp"
            else { return nil }
            self = .hmac(digest, key: bytes[0], salt: bytes[1], passwordFirst: order == "o=ps", hash: bytes[2])
        default: return nil
        }
    }

    /// `a=1,b=2` as numbers (the HMAC order `o=ps` is read by its case, not here).
    private static func parameters(_ text: Substring) -> [Substring: Int]? {
        if text.hasPrefix("o=") { return [:] }
        var values: [Substring: Int] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1].utf8.count <= 9, let value = Int(parts[1]), values[parts[0]] == nil else { return nil }
            values[parts[0]] = value
        }
        return values
    }

    /// The stored string.
    var encoded: String {
        func b64(_ bytes: [UInt8]) -> String { Base64.encode(bytes) }
        switch self {
        case .firebaseScrypt(let key, let separator, let salt, let rounds, let memoryCost, let hash):
            return "$firebase-scrypt$r=\(rounds),m=\(memoryCost)$\(b64(key))$\(b64(separator))$\(b64(salt))$\(b64(hash))"
        case .scrypt(let logN, let r, let p, let salt, let hash):
            return "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(b64(salt))$\(b64(hash))"
        case .pbkdf2(let digest, let rounds, let salt, let hash):
            return "$pbkdf2-\(digest.rawValue)$i=\(rounds)$\(b64(salt))$\(b64(hash))"
        case .hmac(let digest, let key, let salt, let passwordFirst, let hash):
            return "$hmac-\(digest.rawValue)$o=\(passwordFirst ? "ps" : "sp")$\(b64(key))$\(b64(salt))$\(b64(hash))"
        case .salted(let digest, let rounds, let passwordFirst, let salt, let hash):
            return "$salted-\(digest.rawValue)$r=\(rounds),pf=\(passwordFirst ? 1 : 0)$\(b64(salt))$\(b64(hash))"
        }
    }

    // MARK: cost

    /// Why verifying this hash would cost too much or cannot be done, or nil when it can.
    var costProblem: String? {
        switch self {
        case .firebaseScrypt(let key, let separator, let salt, let rounds, let memoryCost, let hash):
            guard (1...32).contains(rounds), (1...20).contains(memoryCost) else {
                return "rounds must be 1 to 32 and memoryCost 1 to 20"
            }
            guard 128 * rounds << memoryCost <= CostLimits.scryptWorkBytes else { return "rounds and memoryCost cost over 256 MiB" }
            guard [key, separator, salt].allSatisfy({ CostLimits.fieldBytes.contains($0.count) }), !key.isEmpty,
                hash.count == key.count
            else { return "the signer key, salt separator, salt or hash has the wrong length" }
        case .scrypt(let logN, let r, let p, let salt, let hash):
            guard (1...24).contains(logN), (1...64).contains(r), (1...64).contains(p), 128 * r * p << logN <= CostLimits.scryptWorkBytes
            else { return "scrypt's N, r and p cost over 256 MiB" }
            guard CostLimits.fieldBytes.contains(salt.count), CostLimits.hashBytes.contains(hash.count) else {
                return "the salt or hash has the wrong length"
            }
        case .pbkdf2(_, let rounds, let salt, let hash):
            guard (1...CostLimits.pbkdf2Rounds).contains(rounds) else { return "PBKDF2's rounds must be 1 to 1,000,000" }
            guard CostLimits.fieldBytes.contains(salt.count), CostLimits.hashBytes.contains(hash.count) else {
                return "the salt or hash has the wrong length"
            }
        case .hmac(let digest, let key, let salt, _, let hash):
            guard !key.isEmpty, CostLimits.fieldBytes.contains(key.count), CostLimits.fieldBytes.contains(salt.count) else {
                return "the key or salt has the wrong length"
            }
            guard hash.count == digest.byteCount else { return "the hash is not \(digest.byteCount) bytes" }
        case .salted(let digest, let rounds, _, let salt, let hash):
            guard rounds == 1 || (rounds == 0 && digest == .md5) else {
                return "\(digest.rawValue.uppercased()) takes 1 round (MD5 also 0): Firebase does not document how it iterates more"
            }
            guard CostLimits.fieldBytes.contains(salt.count) else { return "the salt has the wrong length" }
            let length = rounds == 0 ? 2 * digest.byteCount : digest.byteCount
            guard hash.count == length else { return "the hash is not \(length) bytes" }
        }
        return nil
    }

    var isWithinCostLimits: Bool { costProblem == nil }

    // MARK: checking

    /// True when `password` matches (constant-time comparison). False for a hash over the
    /// limits, which is never computed.
    func verify(_ password: String) -> Bool {
        guard isWithinCostLimits, let computed = try? compute(Array(password.utf8)) else { return false }
        return Secrets.constantTimeEqual(computed, expected)
    }

    private var expected: [UInt8] {
        switch self {
        case .firebaseScrypt(_, _, _, _, _, let hash), .scrypt(_, _, _, _, let hash), .pbkdf2(_, _, _, let hash),
            .hmac(_, _, _, _, let hash), .salted(_, _, _, _, let hash):
            hash
        }
    }

    /// The hash of `password` with this hash's parameters.
    func compute(_ password: [UInt8]) throws -> [UInt8] {
        switch self {
        case .firebaseScrypt(let key, let separator, let salt, let rounds, let memoryCost, _):
            let derived = try KDF.Scrypt.deriveKey(
                from: password, salt: salt + separator, outputByteCount: 64, rounds: 1 << memoryCost, blockSize: rounds,
                parallelism: 1)
            let aesKey = derived.withUnsafeBytes { SymmetricKey(data: Array($0.prefix(32))) }
            return Array(try AES._CTR.encrypt(key, using: aesKey, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))))
        case .scrypt(let logN, let r, let p, let salt, let hash):
            let derived = try KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: hash.count, rounds: 1 << logN, blockSize: r, parallelism: p)
            return derived.withUnsafeBytes { Array($0) }
        case .pbkdf2(let digest, let rounds, let salt, let hash):
            let function: KDF.Insecure.PBKDF2.HashFunction =
                switch digest {
                case .sha1: .insecureSHA1
                case .sha256: .sha256
                case .sha512: .sha512
                }
            let derived = try KDF.Insecure.PBKDF2.deriveKey(
                from: password, salt: salt, using: function, outputByteCount: hash.count, unsafeUncheckedRounds: rounds)
            return derived.withUnsafeBytes { Array($0) }
        case .hmac(let digest, let key, let salt, let passwordFirst, _):
            let message = passwordFirst ? password + salt : salt + password
            let secret = SymmetricKey(data: key)
            switch digest {
            case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: secret))
            case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: message, using: secret))
            case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: message, using: secret))
            }
        case .salted(let digest, let rounds, let passwordFirst, let salt, _):
            let message = passwordFirst ? password + salt : salt + password
            let raw: [UInt8] =
                switch digest {
                case .md5: Array(Insecure.MD5.hash(data: message))
                case .sha1: Array(Insecure.SHA1.hash(data: message))
                case .sha256: Array(SHA256.hash(data: message))
                case .sha512: Array(SHA512.hash(data: message))
                }
            return rounds == 0 ? Array(Hex.encode(raw).utf8) : raw
        }
    }
}

extension ImportedPasswordHash.SaltedDigest {
    /// The length of the digest's output.
    var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }
}

extension ImportedPasswordHash.Digest {
    /// The length of the digest's output.
    var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }
}
