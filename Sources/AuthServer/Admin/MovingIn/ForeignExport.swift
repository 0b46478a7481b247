// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The exports of other auth systems that `authsh admin import --from FORMAT` reads, each user
/// turned into a ``ForeignUser`` (then a line of authsh's own import, checked and written as
/// one). Firebase's has its own path (``FirebaseImport``), which its Admin API shares.
package enum ForeignExport: String, CaseIterable, Sendable {
    /// A Keycloak realm export (`kc.sh export`): `{"realm": ..., "users": [...]}`.
    case keycloak
    /// GoTrue's `auth.users` rows, each with its `auth.identities` (one JSON object a line).
    case supabase
    /// Auth0's bulk user export (JSON lines), with the password hashes file of Auth0's support.
    case auth0
    /// `aws cognito-idp list-users`' output: `{"Users": [...]}`; Cognito exports no hashes.
    case cognito

    /// The top-level array that holds the users, for the formats of one JSON object.
    package var usersKey: String? {
        switch self {
        case .keycloak: "users"
        case .cognito: "Users"
        case .supabase, .auth0: nil
        }
    }

    /// Why a user of an export cannot come in, in words that name the field.
    package struct Refused: Error, Sendable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// The user an export's record holds, or nil for one left out on purpose (a deleted or
    /// anonymous user, who could never sign in again), with why in `leftOut`. `now` (unix
    /// seconds) tells a ban that is over from one that is not; `passwords` finds an Auth0
    /// user's hash.
    package func user(
        _ record: EJSONDocument, now: Int64, passwords: Auth0Passwords? = nil, leftOut: inout String?
    ) throws(Refused) -> ForeignUser? {
        switch self {
        case .keycloak: return try KeycloakExport.user(record)
        case .supabase: return try SupabaseExport.user(record, now: now, leftOut: &leftOut)
        case .auth0: return try Auth0Export.user(record, passwords: passwords)
        case .cognito: return try CognitoExport.user(record)
        }
    }

    // MARK: what the formats share

    /// authsh's provider type of another system's provider name: `google`, `google-oauth2` and
    /// `Google` are `oauth2-google`; any other name is `oauth2-` and the name in lower case (an
    /// app's OpenID Connect provider of that name).
    package static func providerType(_ name: String) -> String? {
        let lower = name.lowercased()
        let known: [String: String] = [
            "google-oauth2": "google", "signinwithapple": "apple", "loginwithamazon": "amazon", "windowslive": "microsoft",
        ]
        let base = known[lower] ?? lower
        guard !base.isEmpty, base.utf8.count <= 57, base.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "/") }) else {
            return nil
        }
        return "oauth2-" + base
    }

    /// The unix seconds of an RFC 3339 time as exports write them (`2024-03-01T10:00:00Z`,
    /// `2024-03-01 10:00:00.123456+00`, `...+00:00`: ``ISODate``), or nil.
    package static func seconds(_ text: String) -> Int64? {
        ISODate.parse(text).map { $0 >= 0 ? $0 / 1000 : ($0 - 999) / 1000 }
    }

    /// A string field (nil when absent, null or empty); `Refused` when it is another type.
    package static func string(_ d: EJSONDocument, _ key: String, max: Int = 1024) throws(Refused) -> String? {
        switch d[key] {
        case nil, .null?: return nil
        case .string(let s)?:
            guard s.utf8.count <= max else { throw Refused("'\(key)' is over \(max) bytes") }
            return s.isEmpty ? nil : s
        default: throw Refused("'\(key)' must be a string")
        }
    }

    /// A boolean field; `"true"` and `"false"` (Cognito's attributes) too.
    package static func flag(_ value: EJSON?) -> Bool? {
        switch value {
        case .bool(let b)?: b
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    /// A field of milliseconds (a number, or digits in a string) as seconds.
    package static func millis(_ value: EJSON?) -> Int64? {
        if let n = value?.integerValue { return n / 1000 }
        if let s = value?.stringValue, let n = Int64(s) { return n / 1000 }
        return nil
    }

    /// The user's id: 1 to 128 bytes without control characters (as a Firebase uid).
    package static func id(_ value: String?, field: String) throws(Refused) -> String {
        guard let value, FirebaseIdentities.isValidUid(value) else {
            throw Refused("'\(field)' must be 1 to 128 bytes without control characters")
        }
        return value
    }

    /// A display name of given and family names.
    static func name(_ given: String?, _ family: String?) -> String? {
        let parts = [given, family].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
