// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Glibc

extension SoftwareAuthenticator {
    /// An authenticator whose credentials live in `<storage>/authenticators/<name>.json`, as
    /// the user store keeps users (0600, the directory 0700, written atomically after each
    /// change): the file holds private keys. A name is letters, digits, `-`, `_` and `.`.
    public static func stored(
        name: String, storage: String, origin: String, verifiesUser: Bool = true
    ) throws(AuthClientError) -> SoftwareAuthenticator {
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix("."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else {
            throw AuthClientError(code: "InvalidName", message: "an authenticator's name is 1 to 64 letters, digits, '-', '_' or '.'")
        }
        let directory = storage + "/authenticators"
        for path in [storage, directory] where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw UserStore.failure("cannot create \(path)")
        }
        let path = "\(directory)/\(name).json"
        var credentials: [Credential] = []
        if let bytes = try UserStore.read(path) {
            guard let json = try? EJSON(parsing: bytes), let stored = Self.credentials(json) else {
                throw AuthClientError(code: AuthClientError.storeFailed, message: "\(path) does not hold an authenticator's credentials")
            }
            credentials = stored
        }
        return SoftwareAuthenticator(origin: origin, verifiesUser: verifiesUser, credentials: credentials) { all in
            let json = SoftwareAuthenticator(origin: origin, credentials: all).exported
            try UserStore.writeAtomically(json.encoded(.relaxed), to: path, directory: directory)
        }
    }
}
