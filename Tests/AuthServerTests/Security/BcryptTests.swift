// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Testing

/// bcrypt hashes (made by Python's crypt, libxcrypt, here) verify as the system that made them
/// would; anything else that merely looks like one does not.
@Suite(.timeLimit(.minutes(5))) struct BcryptTests {
    static let hash = "$2b$04$YW0LQ.MIaLxGPN2Kg8/K8uSpH0AjYn9iBysgsh8POdlztMmGKHLV6"  // "correct horse"
    static let long = "$2b$04$9g5OY0HKHVBcXd6A1m4HR.24a1W0.ROCR0AbwH.55Ng7pgVt/D8bu"  // 80 x "x"

    @Test func verifies() {
        #expect(PasswordHasher.isBcrypt(Self.hash))
        #expect(PasswordHasher.verifyNow("correct horse", Self.hash))
        #expect(!PasswordHasher.verifyNow("correct horsE", Self.hash))
        #expect(!PasswordHasher.verifyNow("", Self.hash))
        #expect(!PasswordHasher.verifyNow("correct horse\u{0}x", Self.hash))
        // $2y$ and $2a$ name the same algorithm for these passwords.
        #expect(PasswordHasher.verifyNow("correct horse", "$2y$" + Self.hash.dropFirst(4)))
        // bcrypt reads 72 bytes, as the system that made the hash did.
        #expect(PasswordHasher.verifyNow(String(repeating: "x", count: 80), Self.long))
        #expect(PasswordHasher.verifyNow(String(repeating: "x", count: 72) + "other", Self.long))
        #expect(!PasswordHasher.verifyNow(String(repeating: "x", count: 71), Self.long))
    }

    @Test func onlyWellFormedHashesAreBcrypt() {
        for bad in [
            "", "$2b$04$short", "$2c$04$" + Self.hash.dropFirst(7), "$2b$03$" + Self.hash.dropFirst(7),
            "$2b$04$" + Self.hash.dropFirst(7).dropLast() + "!", Self.hash + "x",
        ] {
            #expect(!PasswordHasher.isBcrypt(bad), "\(bad)")
            #expect(!PasswordHasher.verifyNow("correct horse", bad))
        }
        #expect(PasswordHasher(parameters: .testing).needsRehash(Self.hash), "a bcrypt hash is rehashed at the next login")
    }
}
