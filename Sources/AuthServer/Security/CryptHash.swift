// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import CCrypt
import Crypto
import Glibc

/// The `crypt(3)` hashes other systems keep, verified through libxcrypt's `crypt_r` (Debian's
/// libcrypt1, the implementation `/etc/shadow` uses): bcrypt (`$2a$`, `$2b$`, `$2y$`),
/// SHA-crypt (`$5$`, `$6$`, with `rounds=` or the default 5,000), MD5-crypt (`$1$`) and
/// yescrypt (`$y$`, Debian's default for `/etc/shadow` since 11).
/// libxcrypt's own parser reads the rest; this type only recognises a form and bounds its cost.
///
/// One form is authsh's: `$bcrypt-sha256` and a bcrypt hash, the bcrypt of the hex SHA-256 of
/// the password (Django's `bcrypt_sha256$`, which lifts bcrypt's 72-byte limit).
struct CryptHash: Equatable, Sendable {
    /// The forms, by their prefix.
    enum Scheme: String, Sendable, CaseIterable {
        case bcrypt, sha256 = "5", sha512 = "6", md5 = "1", yescrypt = "y"
    }

    let scheme: Scheme
    /// bcrypt's cost (log2 rounds) or SHA-crypt's rounds; MD5-crypt's fixed 1,000; yescrypt's
    /// bytes of work (128 × N × r × p × (t + 1)).
    let cost: Int
    /// The `crypt(3)` string libxcrypt checks.
    let text: String
    /// A bcrypt of the password's SHA-256 in hex (`$bcrypt-sha256`), not of the password.
    var prehashed = false

    /// The prefix of a bcrypt of the password's hex SHA-256.
    static let sha256Prefix = "$bcrypt-sha256"

    /// The most a hash may cost: bcrypt cost 14 (about a second here), SHA-crypt a million rounds.
    enum CostLimits {
        static let bcryptCost = 14
        static let shaCryptRounds = 1_000_000
        /// As scrypt's (``ImportedPasswordHash``): 256 MiB of work.
        static let yescryptWorkBytes = 256 << 20
    }

    /// The hash `text` is, or nil when it is none of these forms.
    init?(_ text: String) {
        if text.hasPrefix(Self.sha256Prefix + "$") {
            guard let inner = CryptHash(String(text.dropFirst(Self.sha256Prefix.utf8.count))), inner.scheme == .bcrypt else { return nil }
            self = inner
            prehashed = true
            return
        }
        let b = Array(text.utf8)
        guard b.count <= 256, b.first == UInt8(ascii: "$"), b.allSatisfy(Self.isCryptCharacter) else { return nil }
        self.text = text
        if b.count == 60, b[1] == UInt8(ascii: "2"), [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(b[2]),
            b[3] == UInt8(ascii: "$"), b[6] == UInt8(ascii: "$"), let cost = Int(String(decoding: b[4..<6], as: UTF8.self)),
            (4...31).contains(cost)
        {
            scheme = .bcrypt
            self.cost = cost
            return
        }
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        if fields.count == 5, fields[1] == "y" {
            guard let work = Self.yescryptWork(Array(fields[2].utf8)), fields[3].utf8.count <= 86, fields[4].utf8.count == 43 else {
                return nil
            }
            scheme = .yescrypt
            cost = work
            return
        }
        // "", scheme, [rounds=N,] salt, hash
        guard fields.count == 4 || fields.count == 5, let scheme = Scheme(rawValue: String(fields[1])), scheme != .bcrypt,
            scheme != .yescrypt
        else {
            return nil
        }
        self.scheme = scheme
        var salt = fields[2]
        var cost = scheme == .md5 ? 1000 : 5000
        if fields.count == 5 {
            guard scheme != .md5, salt.hasPrefix("rounds="), let rounds = Int(salt.dropFirst(7)), salt.utf8.count <= 17 else { return nil }
            cost = rounds
            salt = fields[3]
        }
        let hashLength = [Scheme.sha256: 43, .sha512: 86, .md5: 22][scheme]
        guard (0...16).contains(salt.utf8.count), fields.last?.utf8.count == hashLength else { return nil }
        self.cost = cost
    }

    /// yescrypt's parameters (libxcrypt's `yescrypt_encode_params_r`: flavor, log2 N, r, then
    /// optionally which of p, t, g and a ROM follow, each a variable-length number in crypt's
    /// base 64) as their bytes of work, or nil when malformed, when they name a ROM or a
    /// g (libxcrypt makes neither), or when the work is over the limit.
    static func yescryptWork(_ b: [UInt8]) -> Int? {
        var i = 0
        func number(_ min: UInt64) -> UInt64? {
            guard i < b.count, let first = itoa64(b[i]) else { return nil }
            i += 1
            var start: UInt64 = 0, end: UInt64 = 47, chars = 1, bits: UInt64 = 0
            var value = min
            while first > end {
                value += (end + 1 - start) << bits
                start = end + 1
                end = start + (62 - end) / 2
                chars += 1
                bits += 6
            }
            value += (first - start) << bits
            while chars > 1 {
                guard i < b.count, let c = itoa64(b[i]) else { return nil }
                i += 1
                chars -= 1
                bits -= 6
                value += c << bits
            }
            return value
        }
        guard number(0) != nil, let logN = number(1), let r = number(1), logN <= 30, r <= 1 << 16 else { return nil }
        var p: UInt64 = 1, t: UInt64 = 0
        if i < b.count {
            guard let have = number(1) else { return nil }
            if have & 1 != 0 { guard let value = number(2) else { return nil }; p = value }
            if have & 2 != 0 { guard let value = number(1) else { return nil }; t = value }
            guard have & ~3 == 0 else { return nil }
        }
        guard i == b.count, p <= 64, t <= 64 else { return nil }
        let (work, overflow) = (128 * r * p * (t + 1)).multipliedReportingOverflow(by: 1 << logN)
        guard !overflow, work <= UInt64(CostLimits.yescryptWorkBytes) * 1024 else { return nil }
        return Int(work)
    }

    /// The value of a character of crypt's base 64 (`./0-9A-Za-z`).
    private static func itoa64(_ c: UInt8) -> UInt64? {
        switch c {
        case UInt8(ascii: "."): 0
        case UInt8(ascii: "/"): 1
        case 48...57: UInt64(c - 48 + 2)
        case 65...90: UInt64(c - 65 + 12)
        case 97...122: UInt64(c - 97 + 38)
        default: nil
        }
    }

    /// `./0-9A-Za-z` (crypt's base 64), `$`, `=` and `,` (parameters).
    private static func isCryptCharacter(_ c: UInt8) -> Bool {
        (48...57).contains(c) || (65...90).contains(c) || (97...122).contains(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "/")
            || c == UInt8(ascii: "$") || c == UInt8(ascii: "=") || c == UInt8(ascii: ",")
    }

    /// Why verifying this hash would cost too much, or nil when it can be verified.
    var costProblem: String? {
        switch scheme {
        case .bcrypt: cost <= CostLimits.bcryptCost ? nil : "bcrypt's cost must be at most \(CostLimits.bcryptCost)"
        case .sha256, .sha512:
            // SHA-crypt clamps rounds to 1,000 at least, as libxcrypt does.
            cost <= CostLimits.shaCryptRounds ? nil : "SHA-crypt's rounds must be at most 1,000,000"
        case .md5: nil
        case .yescrypt: cost <= CostLimits.yescryptWorkBytes ? nil : "yescrypt's N, r, p and t cost over 256 MiB"
        }
    }

    /// True when `password` matches, compared in constant time. A password with a NUL byte is
    /// refused (C would cut it there); bcrypt reads 72 bytes of a password, as the system that
    /// made the hash did (the rehash at login keeps all of it).
    func verify(_ password: String) -> Bool {
        guard costProblem == nil, !password.utf8.contains(0) else { return false }
        let password = prehashed ? Hex.encode(Array(SHA256.hash(data: Array(password.utf8)))) : password
        var data = crypt_data()
        let computed: [UInt8]? = password.withCString { p in
            text.withCString { h in
                crypt_r(p, h, &data).map {
                    Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0)))
                }
            }
        }
        guard let computed, computed.first != UInt8(ascii: "*") else { return false }  // libxcrypt's failure token
        return Secrets.constantTimeEqual(computed, Array(text.utf8))
    }
}
