// SPDX-License-Identifier: Apache-2.0
/// Argon2id cost parameters (``ServerConfiguration/passwordParameters``; ``PasswordHasher``
/// hashes with them).
public struct PasswordParameters: Sendable, Equatable {
    /// Memory in KiB.
    public var memoryKiB: UInt32
    /// Iterations.
    public var iterations: UInt32
    /// Lanes.
    public var parallelism: UInt32

    /// OWASP's minimum for Argon2id: m=19456 KiB (19 MiB), t=2, p=1.
    public static let owaspMinimum = PasswordParameters(memoryKiB: 19456, iterations: 2, parallelism: 1)
    /// Cheap parameters for tests only; never use them for real passwords.
    public static let testing = PasswordParameters(memoryKiB: 64, iterations: 1, parallelism: 1)

    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// The PHC prefix these parameters produce: `$argon2id$v=19$m=..,t=..,p=..$`.
    var phcPrefix: String { "$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$" }
}
