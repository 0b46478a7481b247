// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import CArgon2
import CCrypt
import NIOPosix

/// Argon2id password hashing (Debian's libargon2), as PHC strings, off the event loop.
/// Verifies bcrypt hashes too (`$2a$`, `$2b$`, `$2y$`, through libxcrypt) and the other forms of
/// ``ImportedPasswordHash`` (Firebase's scrypt, scrypt, PBKDF2, HMAC), which imports bring from
/// other systems; a login with one rehashes it to Argon2id (``needsRehash(_:)``).
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
        public static let bcryptCost = 14
    }

    /// Whether verifying `hash` stays within ``CostLimits`` (false for anything unreadable).
    public static func isWithinCostLimits(_ hash: String) -> Bool {
        if let cost = bcryptCost(hash) { return cost <= CostLimits.bcryptCost }
        if let imported = ImportedPasswordHash(hash) { return imported.isWithinCostLimits }
        let prefix = "$argon2id$v=19$"
        guard hash.hasPrefix(prefix) else { return false }
        let fields = hash.dropFirst(prefix.count).split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return false }
        var values: [Substring: UInt64] = [:]
        for pair in fields[0].split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1].utf8.count <= 10, let value = UInt64(parts[1]), values[parts[0]] == nil else { return false }
            values[parts[0]] = value
        }
        guard values.count == 3, let m = values["m"], let t = values["t"], let p = values["p"] else { return false }
        return (1...CostLimits.argon2MemoryKiB).contains(m) && (1...CostLimits.argon2Iterations).contains(t)
            && (1...CostLimits.argon2Parallelism).contains(p)
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
        if isBcrypt(phc) { return verifyBcrypt(password, phc) }
        if let imported = ImportedPasswordHash(phc) { return imported.verify(password) }
        let pwd = Array(password.utf8)
        return phc.withCString { argon2id_verify($0, pwd, pwd.count) } == ARGON2_OK.rawValue
    }

    /// Whether `hash` is a bcrypt hash (`$2a$`, `$2b$` or `$2y$`, cost, 53 characters of salt and hash).
    public static func isBcrypt(_ hash: String) -> Bool { bcryptCost(hash) != nil }

    /// The cost of a bcrypt hash (4 to 31), or nil for anything that is not one.
    static func bcryptCost(_ hash: String) -> Int? {
        let b = Array(hash.utf8)
        guard b.count == 60, b[0] == 36, b[1] == 50, [97, 98, 121].contains(b[2]), b[3] == 36, b[6] == 36,
            let cost = Int(String(decoding: b[4..<6], as: UTF8.self)), (4...31).contains(cost),
            b[7...].allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 46 || $0 == 47 })
        else { return nil }
        return cost
    }

    /// bcrypt through libxcrypt's `crypt_r`, compared in constant time. bcrypt reads 72 bytes
    /// of a password, as the system that made the hash did; the rehash at login keeps all of it.
    /// A password with a NUL byte is refused (C would cut it there).
    private static func verifyBcrypt(_ password: String, _ hash: String) -> Bool {
        guard !password.utf8.contains(0) else { return false }
        var data = crypt_data()
        let computed: [UInt8]? = password.withCString { p in
            hash.withCString { h in
                crypt_r(p, h, &data).map {
                    Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0)))
                }
            }
        }
        guard let computed, computed.first != 42 else { return false }  // "*": libxcrypt's failure token
        return Secrets.constantTimeEqual(computed, Array(hash.utf8))
    }

    /// libargon2 refused to hash (out of memory, bad parameters).
    public struct HashingError: Error, CustomStringConvertible {
        let code: Int32
        public var description: String { "argon2: " + String(cString: argon2_error_message(code)) }
    }
}
