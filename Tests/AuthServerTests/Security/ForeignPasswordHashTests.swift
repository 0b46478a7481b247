// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import AuthProtocol
import Testing

/// The hashes other systems export verify as those systems do, each with vectors of its own
/// project: SHA-crypt with the vectors of its specification (Ulrich Drepper's sha-crypt.txt),
/// MD5-crypt with passlib's pure-Python implementation's answer, Argon2i with the reference
/// implementation's test.c vector and Argon2d with argon2-cffi's, Django's forms with what
/// Django 5.2's own hashers made (`make_password`'s encoders). A wrong password, a malformed
/// string and a cost over the limits verify nothing.
@Suite(.timeLimit(.minutes(5))) struct ForeignPasswordHashTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var password: String
        var hash: String
        var testDescription: String { String(hash.prefix(24)) }
    }

    static let vectors: [Vector] = [
        // sha-crypt.txt's test vectors.
        Vector(password: "Hello world!", hash: "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"),
        Vector(password: "Hello world!", hash: "$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA"),
        Vector(
            password: "Hello world!",
            hash: "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1"),
        Vector(
            password: "Hello world!",
            hash: "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v."),
        // libxcrypt's test/ka-table.inc (yescrypt, N = 2^10 and 2^11, r = 8), then two that
        // libxcrypt made here: its default cost (j9T: N = 4096, r = 32) and p = 4.
        Vector(password: "a", hash: "$y$j85$LdJMENpBABJJ3hIHjB1Bi.$8/.fVqeICb7tzbG/qB1LWS8JeaEzOWqFEeMNYgITxs4"),
        Vector(password: "abc", hash: "$y$j75$LdJMENpBABJJ3hIHjB1Bi.$aN8IREm4mVoXwP2ZkEbfFinwVjML6Krr5zkB50rSJX3"),
        Vector(password: "password", hash: "$y$j9T$LdJMENpBABJJ3hIHjB1Bi.$u2OTvjfFNnWXgGAOFvgB1vH5NgjtzZuf1aX1t4YvTE."),
        Vector(password: "password", hash: "$y$j75.0$LdJMENpBABJJ3hIHjB1Bi.$b1/5yJbceOwnv8Qh4DhWw/b1O82mWtwz4tuj7aKQXpC"),
        // passlib's scrypt PHC strings (passlib/tests/test_handlers_scrypt.py): base64 without
        // padding, a 32-byte key; the second is the scrypt paper's ("NaCl", N = 1024, p = 16).
        Vector(password: "test", hash: "$scrypt$ln=8,r=8,p=1$wlhLyXmP8b53bm1NKYVQqg$mTpvG8lzuuDk+DWz8HZIB6Vum6erDuUm0As5yU+VxWA"),
        Vector(password: "password", hash: "$scrypt$ln=10,r=8,p=16$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWI"),
        // passlib.hash.md5_crypt (its builtin implementation), salt "saltstri".
        Vector(password: "Hello world!", hash: "$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1"),
        // phc-winner-argon2's test.c: "password", "somesalt", t=2, m=2^16, p=1.
        Vector(password: "password", hash: "$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA"),
        // argon2-cffi's hash_secret (type D and I), salt "NaCl-saltNaCl".
        Vector(password: "correct horse", hash: "$argon2d$v=19$m=4096,t=3,p=2$TmFDbC1zYWx0TmFDbA$/KcTfnqDfiqVidka3/Hyi5kwdwy7dmG98KJwSSSa0Vg"),
        Vector(password: "correct horse", hash: "$argon2i$v=19$m=4096,t=3,p=2$TmFDbC1zYWx0TmFDbA$Xf5UzEe3VTjRUEBgOboC2q0OllCTxQiyatcyglpwf5Q"),
        // Django 5.2's PBKDF2PasswordHasher, PBKDF2SHA1PasswordHasher (1,000 iterations),
        // Argon2PasswordHasher (m=4096, t=2, p=2) and BCryptPasswordHasher (cost 4).
        Vector(password: "lètmein", hash: "pbkdf2_sha256$1000$seasalt$JgZryXe2Ga8ysg6XbzkLpTdyPQrHqsinbL9BnnhgX4A="),
        Vector(password: "lètmein", hash: "pbkdf2_sha1$1000$seasalt$ljleU4wBmTtz/MoG5YTwxpM0d7I="),
        Vector(
            password: "lètmein", hash: "argon2$argon2id$v=19$m=4096,t=2,p=2$YzJWaGMyRnNkSE5sWVhOaGJIUQ$XOFzGpUMI+YnKMlckT6++PJTW/sjLb5CwXUpw7NwA94"
        ),
        Vector(password: "lètmein", hash: "bcrypt$$2b$04$wemm9Zqej027EskJicfv8eYlFbfhXKG8Ttu2P.XAlNy/mALSfubZi"),
        // Django 5.2's BCryptSHA256PasswordHasher (cost 5): bcrypt of the password's hex SHA-256.
        Vector(password: "lètmein-bcrypt-sha256", hash: "bcrypt_sha256$$2b$05$a4cxTpRACOfQ3VHuXMV31.2pKo6YKE3V6ZSA..0aAvLmcjRa3eV7S"),
    ]

    @Test(arguments: vectors) func verifiesAsItsProjectDoes(_ v: Vector) throws {
        let stored = try #require(ForeignPasswordHash.stored(v.hash), "\(v.hash) is not read")
        #expect(PasswordHasher.isWithinCostLimits(stored))
        #expect(PasswordHasher.verifyNow(v.password, stored))
        #expect(!PasswordHasher.verifyNow(v.password + "!", stored))
        #expect(!PasswordHasher.verifyNow("", stored))
    }

    /// Django's forms are stored in authsh's own; PHC and crypt strings as they are.
    @Test func djangosFormsAreStoredInAuthshs() throws {
        #expect(ForeignPasswordHash.stored("pbkdf2_sha1$1000$seasalt$ljleU4wBmTtz/MoG5YTwxpM0d7I=")?.hasPrefix("$pbkdf2-sha1$i=1000$") == true)
        #expect(ForeignPasswordHash.stored("bcrypt$$2b$04$wemm9Zqej027EskJicfv8eYlFbfhXKG8Ttu2P.XAlNy/mALSfubZi")?.hasPrefix("$2b$04$") == true)
        #expect(ForeignPasswordHash.stored(Self.vectors[0].hash) == Self.vectors[0].hash)
        let prehashed = ForeignPasswordHash.stored("bcrypt_sha256$$2b$05$a4cxTpRACOfQ3VHuXMV31.2pKo6YKE3V6ZSA..0aAvLmcjRa3eV7S")
        #expect(prehashed == "$bcrypt-sha256$2b$05$a4cxTpRACOfQ3VHuXMV31.2pKo6YKE3V6ZSA..0aAvLmcjRa3eV7S")
        // Read back as it is stored (an export's), and never taken for plain bcrypt.
        #expect(prehashed.flatMap(ForeignPasswordHash.stored) == prehashed)
        #expect(!PasswordHasher.isBcrypt(prehashed ?? ""))
    }

    @Test func malformedOrUnknownFormsAreNoHash() {
        for text in [
            "", "$", "$5$", "$5$salt", "$6$salt$short", "$5$rounds=x$salt$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
            "$7$CU..../....", "$y$j9T$salt$hash", "$y$j9$LdJMENpBABJJ3hIHjB1Bi.$u2OTvjfFNnWXgGAOFvgB1vH5NgjtzZuf1aX1t4YvTE.",
            "$y$j9T/$LdJMENpBABJJ3hIHjB1Bi.$u2OTvjfFNnWXgGAOFvgB1vH5NgjtzZuf1aX1t4YvTE.", "$argon2i$v=16$m=8,t=1,p=1$c2FsdA$aGFzaA",
            "$argon2x$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA",
            "pbkdf2_sha256$x$salt$aGFzaA==", "pbkdf2_md5$1000$salt$aGFzaA==", "bcrypt_sha256$$2b$04$xx", "unsalted_md5$$5f4dcc3b",
            "$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1 ", "$1$salt\nstri$YMyguxXMBpd2TEZ.vS/3q1",
        ] {
            #expect(ForeignPasswordHash.stored(text) == nil, "\(text.debugDescription) was read")
        }
    }

    /// Costs over the limits are refused before anything is computed (no import may make one
    /// login cost seconds or gigabytes).
    @Test func costsOverTheLimitsAreRefused() {
        for hash in [
            "$6$rounds=1000001$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.",
            "$argon2i$v=19$m=524288,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA",
            "$argon2d$v=19$m=4096,t=17,p=2$TmFDbC1zYWx0TmFDbA$/KcTfnqDfiqVidka3/Hyi5kwdwy7dmG98KJwSSSa0Vg",
            "$2b$15$wemm9Zqej027EskJicfv8eYlFbfhXKG8Ttu2P.XAlNy/mALSfubZi",
            // yescrypt N = 2^19, r = 8: 512 MiB.
            "$y$jG5$LdJMENpBABJJ3hIHjB1Bi.$tUlUF19mIl6XpRTpX7LBp5ABKS8KSmDfP1gXFrZ6Sy8",
        ] {
            let stored = ForeignPasswordHash.stored(hash)
            #expect(stored != nil && !PasswordHasher.isWithinCostLimits(stored!), "\(hash)")
        }
        #expect(
            !PasswordHasher.isWithinCostLimits(
                ForeignPasswordHash.stored("pbkdf2_sha256$1000001$seasalt$JgZryXe2Ga8ysg6XbzkLpTdyPQrHqsinbL9BnnhgX4A=")!))
    }
}
