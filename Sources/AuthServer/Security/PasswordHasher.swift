import CArgon2
import NIOPosix

/// Argon2id password hashing (Debian's libargon2), as PHC strings, off the event loop.
///
/// Hashing runs on NIO's shared thread pool (one thread per core), so a login that hashes
/// for tens of milliseconds never stalls the event loop that serves other requests.
public struct PasswordHasher: Sendable {
    /// Argon2id cost parameters.
    public struct Parameters: Sendable, Equatable {
        /// Memory in KiB.
        public var memoryKiB: UInt32
        /// Iterations.
        public var iterations: UInt32
        /// Lanes.
        public var parallelism: UInt32

        /// OWASP's minimum for Argon2id: m=19456 KiB (19 MiB), t=2, p=1.
        public static let owaspMinimum = Parameters(memoryKiB: 19456, iterations: 2, parallelism: 1)
        /// Cheap parameters for tests only; never use them for real passwords.
        public static let testing = Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

        public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        /// The PHC prefix these parameters produce: `$argon2id$v=19$m=..,t=..,p=..$`.
        var phcPrefix: String { "$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$" }
    }

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
    public func verify(_ password: String, against phc: String) async throws -> Bool {
        try await pool.runIfActive { Self.verifyNow(password, phc) }
    }

    /// True when `phc` was made with other parameters than ``parameters`` (rehash on login).
    public func needsRehash(_ phc: String) -> Bool {
        !phc.hasPrefix(parameters.phcPrefix)
    }

    /// Hashes on the calling thread (benchmarks; the server uses ``hash(_:)``).
    public static func hashNow(_ password: String, _ p: Parameters) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &rng) }
        let pwd = Array(password.utf8)
        let length = argon2_encodedlen(p.iterations, p.memoryKiB, p.parallelism, UInt32(salt.count), 32, Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let rc = argon2id_hash_encoded(p.iterations, p.memoryKiB, p.parallelism, pwd, pwd.count, salt, salt.count,
                                       32, &encoded, length)
        guard rc == ARGON2_OK.rawValue else { throw HashingError(code: rc) }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Verifies on the calling thread.
    public static func verifyNow(_ password: String, _ phc: String) -> Bool {
        let pwd = Array(password.utf8)
        return phc.withCString { argon2id_verify($0, pwd, pwd.count) } == ARGON2_OK.rawValue
    }

    /// libargon2 refused to hash (out of memory, bad parameters).
    public struct HashingError: Error, CustomStringConvertible {
        let code: Int32
        public var description: String { "argon2: " + String(cString: argon2_error_message(code)) }
    }
}
