// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Firebase's custom claims: a JSON object of at most 1000 bytes that names none of the
/// claims Firebase reserves, which every ID token of the user carries at its top level. authsh
/// keeps them as the user's custom data (what App Services' tokens carry as `user_data`).
enum FirebaseClaims {
    /// The most bytes the claims' JSON may have, as Firebase has it.
    static let maxBytes = 1000

    /// The claims a `customAttributes` string holds (nil for `{}`: none), or Firebase's
    /// refusal: `INVALID_CLAIMS`, `CLAIMS_TOO_LARGE`, `FORBIDDEN_CLAIM : NAME`.
    static func parse(_ text: String) throws(FirebaseError) -> EJSONDocument? {
        guard text.utf8.count <= maxBytes else { throw FirebaseError.invalid("CLAIMS_TOO_LARGE") }
        guard case .document(let claims)? = try? EJSON(parsing: Array(text.utf8)) else { throw FirebaseError.invalid("INVALID_CLAIMS") }
        if let reserved = claims.keys.first(where: FirebaseIDTokens.reservedClaims.contains) {
            throw FirebaseError.invalid("FORBIDDEN_CLAIM", reserved)
        }
        return claims.isEmpty ? nil : claims
    }

    /// The `claims` of a custom token, held to the same rules (`INVALID_CUSTOM_TOKEN` naming
    /// what is wrong); nil for none.
    static func ofCustomToken(_ claims: EJSON?) throws(FirebaseError) -> EJSONDocument? {
        guard let claims, claims != .null else { return nil }
        guard case .document(let document) = claims else { throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "its claims must be an object") }
        guard EJSON.document(document).encodedString(.relaxed).utf8.count <= maxBytes else {
            throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "its claims take more than \(maxBytes) bytes as JSON")
        }
        if let reserved = document.keys.first(where: FirebaseIDTokens.reservedClaims.contains) {
            throw FirebaseError.invalid("INVALID_CUSTOM_TOKEN", "its claims name the reserved claim \(reserved)")
        }
        return document.isEmpty ? nil : document
    }
}
