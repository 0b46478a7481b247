// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// How a user's identities look through the Firebase API: authsh's provider types as
/// Firebase's provider ids (`local-userpass` is `password`, `oauth2-google` is `google.com`),
/// and the email a user's token and `lookup` show.
enum FirebaseIdentities {
    /// Firebase's provider id of an authsh provider type.
    static func providerId(_ type: String) -> String {
        switch type {
        case ProviderType.userpass: "password"
        case ProviderType.anonymous: "anonymous"
        case ProviderType.customToken, ProviderType.customFunction, ProviderType.apiKey: "custom"
        case "oauth2-google": "google.com"
        case "oauth2-github": "github.com"
        case "oauth2-apple": "apple.com"
        case "oauth2-facebook": "facebook.com"
        case let other where other.hasPrefix("oauth2-"): "oidc." + other.dropFirst(7)
        default: type
        }
    }

    /// The user's email, and whether an identity proved it: a proven one first (an
    /// identity's vouched email), else an email/password identity's.
    static func email(of user: UserRecord) -> (email: String, verified: Bool)? {
        if let proven = user.identities.compactMap(\.email).first { return (proven, true) }
        let typed = user.identities.first { $0.providerType == ProviderType.userpass }?.data["email"]?.stringValue
        return typed.map { ($0, false) }
    }

    /// The user's phone number: its `phone` identity's.
    static func phoneNumber(of user: UserRecord) -> String? {
        user.identities.first { $0.providerType == ProviderType.phone }?.externalId
    }

    /// `firebase.identities` of a token: the ids the user signs in with, by provider
    /// (`{"email": ["ada@example.com"], "google.com": ["1234"]}`); anonymous identities none.
    static func tokenIdentities(of user: UserRecord) -> EJSONDocument {
        var identities: EJSONDocument = [:]
        func add(_ key: String, _ value: String) {
            var list = identities[key]?.arrayValue ?? []
            if !list.contains(.string(value)) { list.append(.string(value)) }
            identities[key] = .array(list)
        }
        for identity in user.identities where identity.providerType != ProviderType.anonymous {
            let provider = providerId(identity.providerType)
            if provider != "password" && provider != "custom" { add(provider, identity.externalId) }
        }
        if let (email, _) = email(of: user) { add("email", email) }
        return identities
    }
}

extension FirebaseIdentities {
    /// Whether `uid` may be a user's id through the Firebase APIs (a `localId`, a custom token's
    /// `uid`): 1 to 128 bytes, as Firebase's, without control characters (an id is printed in
    /// logs, terminals and admin pages).
    static func isValidUid(_ uid: String) -> Bool {
        (1...128).contains(uid.utf8.count)
            && uid.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }
    }

    /// authsh's provider type of a Firebase provider id (`google.com` is `oauth2-google`,
    /// `oidc.NAME` is `oauth2-NAME`), or nil for one without (`custom`).
    static func providerType(_ providerId: String) -> String? {
        switch providerId {
        case "password": ProviderType.userpass
        case "anonymous": ProviderType.anonymous
        case "phone": ProviderType.phone
        case "google.com": "oauth2-google"
        case "github.com": "oauth2-github"
        case "apple.com": "oauth2-apple"
        case "facebook.com": "oauth2-facebook"
        case let other where other.hasPrefix("oidc.") && other.count > 5: "oauth2-" + other.dropFirst(5)
        default: nil
        }
    }
}
