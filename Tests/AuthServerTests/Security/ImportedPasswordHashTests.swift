// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import AuthProtocol
import Testing

/// The hashes imports bring verify as the systems that made them do: Firebase's scrypt with the
/// vector of firebase/scrypt's README, the others with hashes Python's hashlib made (an
/// implementation of its own). Anything malformed or over the cost limits verifies nothing.
@Suite(.timeLimit(.minutes(5))) struct ImportedPasswordHashTests {
    static func bytes(_ base64: String) -> [UInt8] { Base64.decode(base64)! }

    /// firebase/scrypt's README: its sample project's parameters and user1's hash.
    static let firebase = ImportedPasswordHash.firebaseScrypt(
        signerKey: bytes("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        saltSeparator: bytes("Bw=="), salt: bytes("42xEC+ixf3L2lw=="), rounds: 8, memoryCost: 14,
        hash: bytes("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="))

    static let salt = Array("NaCl-salt".utf8)

    /// hashlib's answers for "correct horse" (salt "NaCl-salt", HMAC key "secret", 1000 PBKDF2 rounds).
    static let others: [ImportedPasswordHash] = [
        .pbkdf2(.sha1, rounds: 1000, salt: salt, hash: bytes("PcNuGa8v8cY1Pucao23czMYZVc8=")),
        .pbkdf2(
            .sha256, rounds: 1000, salt: salt,
            hash: bytes("8GgLOauGHBHN5T42RKUyaja0mZxgcCvctsjbYuP7E8a4GPga2U2t/Ft9n878x9LZtx7hFXm05Fo7XhDX2hV+9A==")),
        .pbkdf2(
            .sha512, rounds: 1000, salt: salt,
            hash: bytes("GV1wzpLCG9hcDMi0/Ua2xx+b6ZOez94QwI1EaxUgH35jvqugtWfkesHC90onSH4VbmHPaXqgcOONRF3tonTK/Q==")),
        .hmac(.sha1, key: Array("secret".utf8), salt: salt, passwordFirst: true, hash: bytes("zx8WuRixOf+fcpO90d1o3czup5g=")),
        .hmac(.sha1, key: Array("secret".utf8), salt: salt, passwordFirst: false, hash: bytes("CvaCZ2vTg1ClEuGbrXgC/HyMFBU=")),
        .hmac(
            .sha256, key: Array("secret".utf8), salt: salt, passwordFirst: true, hash: bytes("hYvvWhggRPlJpn8fOtieG5OLaLaCStHOrrxbKyX20n8=")),
        .hmac(
            .sha256, key: Array("secret".utf8), salt: salt, passwordFirst: false, hash: bytes("6JdXpA2eJuVg3jFRaU888lsWRn7wayy0ry6527u4ENY=")),
        .hmac(
            .sha512, key: Array("secret".utf8), salt: salt, passwordFirst: true,
            hash: bytes("Z+8ENCZXoHhSp7nACq1KmhARjXEkgr5flmVrGp3R0YfHViV9SOld0QiANJTqUL4VviO8lQ5j5rpkdCrK/meUAg==")),
        .scrypt(
            logN: 10, r: 8, p: 16, salt: salt,
            hash: bytes("bjbOw+RalTJdmmuj8RqAa7iIJZuClZxdNmT2/ejhlg4htNXpklLpdiB5qpsgCWYbU6m1nX5A6lG7O60EsITl3w==")),
    ]

    @Test func firebaseScryptVerifiesTheReadmeVector() {
        #expect(Self.firebase.verify("user1password"))
        #expect(!Self.firebase.verify("user1passwore"))
        #expect(!Self.firebase.verify(""))
        // Through the stored string, as a login reads it.
        let stored = Self.firebase.encoded
        #expect(stored.hasPrefix("$firebase-scrypt$r=8,m=14$"))
        #expect(ImportedPasswordHash(stored) == Self.firebase)
        #expect(PasswordHasher.verifyNow("user1password", stored))
        #expect(PasswordHasher.isWithinCostLimits(stored))
        #expect(PasswordHasher(parameters: .testing).needsRehash(stored))
    }

    @Test(arguments: others) func verifiesAsHashlibDoes(_ hash: ImportedPasswordHash) {
        #expect(hash.verify("correct horse"), "\(hash.encoded)")
        #expect(!hash.verify("correct horsE"))
        #expect(ImportedPasswordHash(hash.encoded) == hash)
        #expect(PasswordHasher.verifyNow("correct horse", hash.encoded))
    }

    /// Firebase's salted digests with the vectors Firebase's own code and users give:
    /// firebase-admin-node's import integration test (SHA256 of "NaCl" + "password", one round;
    /// MD5 at round 0, its hex), firebase-tools issue 282 (MD5, salt "qwerty") and a SHA1 with
    /// the password first (firebase-tools' `--hash-input-order=PASSWORD_FIRST`, salt bytes
    /// "XiwiihQ="). More rounds are refused: Firebase does not say how it iterates them.
    @Test func firebaseSaltedDigestsVerifyAsFirebaseDoes() {
        let nacl = Array("NaCl".utf8)
        let vectors: [(ImportedPasswordHash, String)] = [
            (
                .salted(.sha256, rounds: 1, passwordFirst: false, salt: nacl, hash: Self.bytes("sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM=")),
                "password"
            ),
            (.salted(.md5, rounds: 0, passwordFirst: false, salt: nacl, hash: Array("62d19f7e7ddcb5946728776d25e410ed".utf8)), "password"),
            (
                .salted(
                    .md5, rounds: 0, passwordFirst: false, salt: Array("qwerty".utf8),
                    hash: Self.bytes("MjBmN2VjNzI0ZTY2MWJhZDEzMzM4MmQwZDUzNGIyZjc=")),
                "hellotest"
            ),
            (
                .salted(.sha1, rounds: 1, passwordFirst: true, salt: Array("XiwiihQ=".utf8), hash: Self.bytes("kfjS+dtoePcY0vEKx1w5ol2ZJ88=")),
                "Password1"
            ),
        ]
        for (hash, password) in vectors {
            #expect(hash.costProblem == nil && hash.verify(password), "\(hash.encoded)")
            #expect(!hash.verify(password + "!"))
            #expect(ImportedPasswordHash(hash.encoded) == hash)
            #expect(PasswordHasher.verifyNow(password, hash.encoded))
        }
        let twice = ImportedPasswordHash.salted(.sha256, rounds: 2, passwordFirst: false, salt: nacl, hash: Array(repeating: 0, count: 32))
        #expect(twice.costProblem?.contains("does not document") == true)
        let sha1AtZero = ImportedPasswordHash.salted(.sha1, rounds: 0, passwordFirst: false, salt: nacl, hash: Array(repeating: 0, count: 40))
        #expect(sha1AtZero.costProblem != nil)
    }

    @Test func malformedStringsAreNoHash() {
        let good = Self.others[1].encoded
        for bad in [
            "", "$pbkdf2-sha256$", "$pbkdf2-md5$i=1000$AAAA$AAAA", "$pbkdf2-sha256$i=1000$AAAA", "$pbkdf2-sha256$i=x$AAAA$AAAA",
            "$pbkdf2-sha256$i=1000,i=2$AAAA$AAAA", "$pbkdf2-sha256$i=1000$!!!!$AAAA", "$hmac-sha256$o=xx$AAAA$AAAA$AAAA",
            "$scrypt$ln=10,r=8$AAAA$AAAA", "$firebase-scrypt$r=8$AAAA$AAAA$AAAA$AAAA", good + "$AAAA",
        ] {
            #expect(ImportedPasswordHash(bad) == nil, "\(bad)")
            #expect(!PasswordHasher.verifyNow("correct horse", bad))
        }
    }

    /// A hash whose check would cost seconds or gigabytes is never computed.
    @Test func costsOverTheLimitsAreRefused() {
        let key = Array(repeating: UInt8(1), count: 64)
        for costly in [
            ImportedPasswordHash.firebaseScrypt(signerKey: key, saltSeparator: [7], salt: [1], rounds: 8, memoryCost: 19, hash: key),
            .firebaseScrypt(signerKey: key, saltSeparator: [7], salt: [1], rounds: 64, memoryCost: 14, hash: key),
            .scrypt(logN: 20, r: 8, p: 1, salt: Self.salt, hash: key),
            .scrypt(logN: 14, r: 8, p: 64, salt: Self.salt, hash: key),
            .pbkdf2(.sha256, rounds: 5_000_000, salt: Self.salt, hash: key),
            .pbkdf2(.sha256, rounds: 1000, salt: Self.salt, hash: [1, 2, 3]),
            .hmac(.sha256, key: [], salt: Self.salt, passwordFirst: true, hash: Array(key.prefix(32))),
        ] {
            #expect(costly.costProblem != nil, "\(costly.encoded)")
            #expect(!PasswordHasher.isWithinCostLimits(costly.encoded))
            #expect(!costly.verify("correct horse"))
        }
    }
}
