// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// What the browser says about a ceremony (`clientDataJSON`, WebAuthn Level 2 section 5.8.1):
/// its type, the challenge it signed, and the page's origin.
struct ClientData: Sendable {
    let type: String
    /// base64url, as the server sent it.
    let challenge: String
    let origin: String
    let crossOrigin: Bool

    init(_ bytes: [UInt8]) throws(COSEKey.Refusal) {
        guard bytes.count <= 8192, case .document(let d)? = try? EJSON(parsing: bytes, maxDepth: 8) else {
            throw COSEKey.Refusal(reason: "clientDataJSON is not a JSON object")
        }
        guard let type = d["type"]?.stringValue, let challenge = d["challenge"]?.stringValue, let origin = d["origin"]?.stringValue else {
            throw COSEKey.Refusal(reason: "clientDataJSON lacks type, challenge or origin")
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        crossOrigin = d["crossOrigin"]?.boolValue ?? false
    }
}
