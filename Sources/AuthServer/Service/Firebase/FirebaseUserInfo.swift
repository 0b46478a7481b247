// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage

/// A user as the Firebase API shows it (`UserInfo` of `accounts:lookup`, `batchGet`, `query`):
/// `localId`, `email`, `emailVerified`, `phoneNumber`, `displayName` and `photoUrl` (the profile's `name` and
/// `picture_url`), `disabled`, `createdAt`, `providerUserInfo`; and for the Admin API also
/// `customAttributes` (the user's custom data as a JSON string), `lastLoginAt` and
/// `validSince`.
enum FirebaseUserInfo {
    /// What the Admin API shows beyond a user's own view.
    struct AdminFields: Sendable {
        var lastLoginAt: Int64?
        var validSince: Int64?
        /// The user's second factors (``FirebaseSecondFactors/mfaInfo(_:obscured:)``), where read.
        var mfaInfo: [EJSON] = []
    }

    /// The user as Firebase shows it; `mfaInfo`, the user's second factors, where the caller
    /// read them (`lookup`).
    static func describe(_ user: UserRecord, admin: AdminFields? = nil, mfaInfo: [EJSON] = []) -> EJSONDocument {
        var d: EJSONDocument = [
            "localId": .string(user.id), "disabled": .bool(user.disabled), "createdAt": .string(String(user.createdAt * 1000)),
            "providerUserInfo": .array(
                user.identities.filter { $0.providerType != ProviderType.anonymous }.map { identity in
                    let provider = FirebaseIdentities.providerId(identity.providerType)
                    var info: EJSONDocument = ["providerId": .string(provider)]
                    let email = identity.email ?? identity.data["email"]?.stringValue
                    if provider == "password", let email {
                        info["federatedId"] = .string(email)
                        info["rawId"] = .string(email)
                    } else {
                        info["federatedId"] = .string(identity.externalId)
                        info["rawId"] = .string(identity.externalId)
                    }
                    if let email { info["email"] = .string(email) }
                    if identity.providerType == ProviderType.phone { info["phoneNumber"] = .string(identity.externalId) }
                    return .document(info)
                }),
        ]
        if let (email, verified) = FirebaseIdentities.email(of: user) {
            d["email"] = .string(email)
            d["emailVerified"] = .bool(verified)
        }
        if let number = FirebaseIdentities.phoneNumber(of: user) { d["phoneNumber"] = .string(number) }
        if let name = user.data["name"]?.stringValue { d["displayName"] = .string(name) }
        if let url = user.data["picture_url"]?.stringValue { d["photoUrl"] = .string(url) }
        if let admin {
            if let claims = user.customData {
                d["customAttributes"] = .string(String(decoding: EJSON.document(claims).encoded(.relaxed), as: UTF8.self))
            }
            if let last = admin.lastLoginAt { d["lastLoginAt"] = .string(String(last * 1000)) }
            d["validSince"] = .string(String(admin.validSince ?? user.createdAt))
        }
        let factors = mfaInfo + (admin?.mfaInfo ?? [])
        if !factors.isEmpty { d["mfaInfo"] = .array(factors) }
        return d
    }
}
