// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Testing

/// RFC 6238's and RFC 4648's published test vectors, and what authenticator apps read.
@Suite struct TOTPTests {
    /// RFC 6238 appendix B, SHA-1 (its secret is the ASCII of "12345678901234567890"; 8 digits).
    @Test(arguments: [
        (Int64(59), "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ])
    func rfc6238Vectors(time: Int64, code: String) {
        let totp = TOTP(secret: Array("12345678901234567890".utf8), digits: 8)
        #expect(totp.code(at: time) == code)
    }

    /// RFC 4226 appendix D: HOTP values 0 to 9 (6 digits) are TOTP's codes of steps 0 to 9.
    @Test func rfc4226Vectors() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        #expect((0..<10).map { totp.code(step: Int64($0)) } == expected)
    }

    @Test func aCodeMatchesWithinOneStepEitherWay() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        let time: Int64 = 1_700_000_015
        let step = totp.step(at: time)
        #expect(totp.matchingStep(totp.code(at: time), at: time) == step)
        #expect(totp.matchingStep(totp.code(at: time - 30), at: time) == step - 1)
        #expect(totp.matchingStep(totp.code(at: time + 30), at: time) == step + 1)
        #expect(totp.matchingStep(totp.code(at: time + 60), at: time) == nil)
        #expect(totp.matchingStep(totp.code(at: time - 60), at: time) == nil)
        #expect(totp.matchingStep("12345", at: time) == nil)
        #expect(totp.matchingStep(totp.code(at: time) + "0", at: time) == nil)
    }

    /// RFC 4648 section 10.
    @Test(arguments: [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI"),
    ])
    func base32Vectors(plain: String, encoded: String) {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(Base32.decode(encoded) == Array(plain.utf8))
        #expect(Base32.decode(encoded.lowercased() + "=") == Array(plain.utf8))
    }

    @Test func base32RefusesWhatIsNotBase32() {
        #expect(Base32.decode("MZ1W6") == nil, "1 is not in the alphabet")
        #expect(Base32.decode("MZ") == nil, "trailing bits must be zero")
        #expect(Base32.decode("MZXW 6YTB-OI") == Array("foobar".utf8), "spaces and dashes are ignored")
        #expect(TOTP(base32: "") == nil)
    }

    @Test func theURIIsWhatAuthenticatorAppsRead() {
        let totp = TOTP(secret: Array("foobar".utf8))
        #expect(
            totp.uri(issuer: "Acme & Co", account: "ann+x@example.com")
                == "otpauth://totp/Acme%20%26%20Co:ann%2Bx%40example.com?secret=MZXW6YTBOI&issuer=Acme%20%26%20Co&algorithm=SHA1&digits=6&period=30"
        )
    }
}
