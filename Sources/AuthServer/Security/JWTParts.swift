// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A JWT's header and claims as they read, before any check: what picks the key (`kid`), and
/// what an unsigned token (`alg: none`, as Firebase's emulator makes them) says.
struct JWTParts: Sendable {
    let header: EJSONDocument
    let claims: EJSONDocument
    /// Whether the token has a signature (an unsigned one ends in `.`).
    let isSigned: Bool

    /// The parts of `token`, or nil when it is no JWT (three base64url parts, the first two
    /// JSON objects) or longer than `limit` bytes.
    init?(_ token: String, limit: Int = 16_384) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= limit, parts.count == 3, let headerBytes = Base64.decode(parts[0].utf8),
            case .document(let header)? = try? EJSON(parsing: headerBytes, maxDepth: 4),
            let claimBytes = Base64.decode(parts[1].utf8), case .document(let claims)? = try? EJSON(parsing: claimBytes, maxDepth: 32)
        else { return nil }
        self.header = header
        self.claims = claims
        isSigned = !parts[2].isEmpty
    }

    /// Whether it is an unsigned token, as the emulator's are.
    var isUnsigned: Bool { header["alg"]?.stringValue == "none" && !isSigned }
}
