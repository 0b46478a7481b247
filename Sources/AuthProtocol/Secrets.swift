// SPDX-License-Identifier: Apache-2.0
import Crypto

/// Random secrets and their stored forms.
public enum Secrets {
    /// `count` random bytes from the system's generator, as lowercase hex.
    public static func randomHex(bytes count: Int) -> String {
        Hex.encode(randomBytes(count))
    }

    /// `count` random bytes.
    public static func randomBytes(_ count: Int) -> [UInt8] { SystemRandomNumberGenerator.bytes(count) }

    /// The stored form of a high-entropy secret (refresh token, API key, email token): SHA-256.
    /// A fast hash is right here: these are random, not guessable passwords.
    public static func digest(_ secret: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(secret.utf8)))
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
