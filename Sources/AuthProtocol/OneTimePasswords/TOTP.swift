// SPDX-License-Identifier: Apache-2.0
import Crypto

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), as authenticator apps make
/// them: HMAC-SHA-1, 6 digits, 30-second steps counted from the Unix epoch. The server checks
/// codes with it, and the client and scripts make them (`auth.totp(secret)`).
public struct TOTP: Sendable, Equatable {
    /// The shared secret.
    public var secret: [UInt8]
    public var digits: Int
    /// Seconds per step.
    public var period: Int64

    public init(secret: [UInt8], digits: Int = 6, period: Int64 = 30) {
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// The generator of a base32 secret (an `otpauth://` URI's `secret`), or nil when it is not base32.
    public init?(base32 secret: String) {
        guard let bytes = Base32.decode(secret), !bytes.isEmpty else { return nil }
        self.init(secret: bytes)
    }

    /// The step a Unix time falls in.
    public func step(at time: Int64) -> Int64 { time >= 0 ? time / period : (time - period + 1) / period }

    /// The code of `step`: RFC 4226's dynamic truncation, zero-padded to ``digits``.
    public func code(step: Int64) -> String {
        var counter = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { counter[i] = UInt8(truncatingIfNeeded: UInt64(bitPattern: step) >> UInt64(56 - 8 * i)) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus = modulus &* 10 }
        let number = String(digits >= 10 ? value : value % modulus)
        return String(repeating: "0", count: max(0, digits - number.count)) + number
    }

    /// The code at a Unix time.
    public func code(at time: Int64) -> String { code(step: step(at: time)) }

    /// The step within `window` steps of `time`'s (either way) whose code is `code`, or nil.
    /// Every candidate is compared, in constant time, so the answer's timing tells nothing.
    public func matchingStep(_ code: String, at time: Int64, window: Int64 = 1) -> Int64? {
        let given = Array(code.utf8)
        let now = step(at: time)
        var found: Int64?
        for candidate in (now - window)...(now + window) {
            let expected = Array(self.code(step: candidate).utf8)
            var difference = UInt8(given.count == expected.count ? 0 : 1)
            for (a, b) in zip(given, expected) { difference |= a ^ b }
            if difference == 0 && found == nil { found = candidate }
        }
        return found
    }

    /// The `otpauth://totp/` URI an authenticator app reads (from a QR code): `issuer` and
    /// `account` label the entry in the app.
    public func uri(issuer: String, account: String) -> String {
        let label = FormEncoding.escape(issuer) + ":" + FormEncoding.escape(account)
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(FormEncoding.escape(issuer))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }
}
