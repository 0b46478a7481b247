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
}
