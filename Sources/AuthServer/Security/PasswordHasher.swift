// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import CArgon2
import CCrypt
import NIOPosix

/// Argon2id password hashing (Debian's libargon2), as PHC strings, off the event loop.
/// Verifies what imports bring from other systems too (``ForeignPasswordHash``): Argon2i and
/// Argon2d, `crypt(3)` hashes (bcrypt, SHA-crypt, MD5-crypt, through libxcrypt: ``CryptHash``)
/// and the forms of ``ImportedPasswordHash`` (Firebase's scrypt, scrypt, PBKDF2, HMAC); a login
/// with one rehashes it to Argon2id (``needsRehash(_:)``).
///
/// Hashing runs on NIO's shared thread pool (one thread per core), so a login that hashes
/// for tens of milliseconds never stalls the event loop that serves other requests.
public struct PasswordHasher: Sendable {
    /// Argon2id cost parameters (``PasswordParameters``: the configuration holds them).
    public typealias Parameters = PasswordParameters

    /// The parameters new hashes use.
    public let parameters: Parameters
    private let pool: NIOThreadPool

    /// A hasher with these parameters on this thread pool.
    public init(parameters: Parameters = .owaspMinimum, pool: NIOThreadPool = .singleton) {
        self.parameters = parameters
        self.pool = pool
    }

    /// A PHC string for `password` with a fresh 16-byte salt.
    public func hash(_ password: String) async throws -> String {
        let parameters = self.parameters
        return try await pool.runIfActive { try Self.hashNow(password, parameters) }
    }

    /// True when `password` matches `phc` (constant-time comparison, inside libargon2).
    ///
    /// A hash whose cost is over ``costLimits`` (one brought by an import) is refused without
    /// being computed, unless it uses this server's own parameters: otherwise anyone who knows
    /// its email could make each login take gigabytes or hours.
    public func verify(_ password: String, against phc: String) async throws -> Bool {
        guard !needsRehash(phc) || Self.isWithinCostLimits(phc) else { return false }
        return try await pool.runIfActive { Self.verifyNow(password, phc) }
    }

    /// The most a hash from elsewhere may cost to verify: Argon2id up to 256 MiB, 16 passes and
    /// 16 lanes; bcrypt up to cost 14 (about a second here). Real systems stay well below.
    public enum CostLimits {
        public static let argon2MemoryKiB: UInt64 = 256 * 1024
        public static let argon2Iterations: UInt64 = 16
        public static let argon2Parallelism: UInt64 = 16
        public static let bcryptCost = CryptHash.CostLimits.bcryptCost
    }

    /// Whether verifying `hash` stays within ``CostLimits`` (false for anything unreadable).
    public static func isWithinCostLimits(_ hash: String) -> Bool {
        if let crypt = CryptHash(hash) { return crypt.costProblem == nil }
        if let imported = ImportedPasswordHash(hash) { return imported.isWithinCostLimits }
        guard let argon2 = Argon2Hash(hash) else { return false }
        return (1...CostLimits.argon2MemoryKiB).contains(argon2.memoryKiB) && (1...CostLimits.argon2Iterations).contains(argon2.iterations)
            && (1...CostLimits.argon2Parallelism).contains(argon2.parallelism)
    }

    /// The hash of an account made without a password (Firebase's Admin API creates users with
    /// an email only): no password matches it until a reset sets one.
    public static let noPassword = "!"

    /// True when `phc` was made with other parameters than ``parameters`` (rehash on login).
    public func needsRehash(_ phc: String) -> Bool {
        !phc.hasPrefix(parameters.phcPrefix)
    }

    /// Hashes on the calling thread (benchmarks; the server uses ``hash(_:)``).
    public static func hashNow(_ password: String, _ p: Parameters) throws -> String {
        let salt = SystemRandomNumberGenerator.bytes(16)
        let pwd = Array(password.utf8)
        let length = argon2_encodedlen(p.iterations, p.memoryKiB, p.parallelism, UInt32(salt.count), 32, Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let rc = argon2id_hash_encoded(
            p.iterations, p.memoryKiB, p.parallelism, pwd, pwd.count, salt, salt.count,
            32, &encoded, length)
        guard rc == ARGON2_OK.rawValue else { throw HashingError(code: rc) }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Verifies on the calling thread.
    public static func verifyNow(_ password: String, _ phc: String) -> Bool {
        if let crypt = CryptHash(phc) { return crypt.verify(password) }
        if let imported = ImportedPasswordHash(phc) { return imported.verify(password) }
        let pwd = Array(password.utf8)
        let type: argon2_type =
            switch Argon2Hash(phc)?.variant {
            case .argon2i?: Argon2_i
            case .argon2d?: Argon2_d
            default: Argon2_id
            }
        return phc.withCString { argon2_verify($0, pwd, pwd.count, type) } == ARGON2_OK.rawValue
    }

    /// Whether `hash` is a bcrypt hash (`$2a$`, `$2b$` or `$2y$`, cost, 53 characters of salt and hash).
    public static func isBcrypt(_ hash: String) -> Bool { CryptHash(hash).map { $0.scheme == .bcrypt && !$0.prehashed } ?? false }

    /// libargon2 refused to hash (out of memory, bad parameters).
    public struct HashingError: Error, CustomStringConvertible {
        let code: Int32
        public var description: String { "argon2: " + String(cString: argon2_error_message(code)) }
    }
}
