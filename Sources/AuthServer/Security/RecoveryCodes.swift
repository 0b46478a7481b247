// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Recovery codes: what a user who lost their authenticator logs in with, each once. They are
/// random (50 bits each, as `xxxxx-xxxxx`), so the store keeps a fast digest of each, as of
/// refresh tokens; the codes themselves are shown once, when made.
enum RecoveryCodes {
    /// How many a user gets.
    static let count = 10

    /// A fresh set.
    static func make() -> [String] {
        (0..<count).map { _ in
            let text = Base32.encode(Secrets.randomBytes(7)).lowercased().prefix(10)
            return text.prefix(5) + "-" + text.dropFirst(5)
        }
    }

    /// The stored form of a code as the person typed it: case, dashes and spaces do not count.
    static func digest(_ code: String) -> [UInt8] {
        Secrets.digest(String(code.lowercased().filter { $0 != "-" && $0 != " " }))
    }
}
