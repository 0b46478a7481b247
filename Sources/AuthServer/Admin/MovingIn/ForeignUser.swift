// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user of another system's export (``ForeignExport``), in the words authsh's import takes:
/// ``line`` is one user line of ``TransferLine``, which the import then checks as it checks its
/// own exports (the password hash's form and cost, emails, identities held by other users).
package struct ForeignUser: Sendable {
    /// The id the user had there (a UUID, `auth0|...`), kept: the app's own records name it.
    package var id: String
    package var disabled = false
    package var createdAt: Int64?
    package var lastLoginAt: Int64?
    /// authsh's profile fields (`name`, `first_name`, `last_name`, `email`, `picture_url`).
    package var profile: EJSONDocument = [:]
    package var customData: EJSONDocument?
    /// The email/password account: its email, its password hash in a form
    /// ``ForeignPasswordHash`` reads or `!` (none: the person sets one through the reset
    /// flow), whether its registration is confirmed and whether its email is proven.
    package var account: (email: String, passwordHash: String, confirmed: Bool, verified: Bool)?
    /// The identities of other providers (authsh's provider type, the provider's subject).
    package var identities: [(providerType: String, externalId: String, email: String?)] = []

    package init(id: String) { self.id = id }

    /// The user as a line of authsh's NDJSON import.
    package var line: EJSONDocument {
        var identityList: [EJSON] = []
        var accounts: [EJSON] = []
        if let account {
            // The account's identity: a new id, as a registration makes one.
            let identityId = ObjectId(seconds: UInt32(truncatingIfNeeded: createdAt ?? 0)).hex
            identityList.append([
                "providerType": .string(ProviderType.userpass), "externalId": .string(identityId),
                "email": account.verified ? .string(account.email) : .null, "data": ["email": .string(account.email)],
            ])
            var a: EJSONDocument = [
                "email": .string(account.email), "passwordHash": .string(account.passwordHash), "confirmed": .bool(account.confirmed),
                "identityId": .string(identityId), "emailVerified": .bool(account.verified),
            ]
            if let createdAt { a["createdAt"] = .int64(createdAt) }
            accounts.append(.document(a))
        }
        for i in identities {
            var data: EJSONDocument = [:]
            if let email = i.email { data["email"] = .string(email) }
            identityList.append([
                "providerType": .string(i.providerType), "externalId": .string(i.externalId), "email": i.email.map(EJSON.string) ?? .null,
                "data": .document(data),
            ])
        }
        var d: EJSONDocument = [
            "id": .string(id), "type": "normal", "disabled": .bool(disabled), "data": .document(profile),
            "identities": .array(identityList), "accounts": .array(accounts),
        ]
        if let createdAt { d["createdAt"] = .int64(createdAt) }
        if let lastLoginAt { d["lastLoginAt"] = .int64(lastLoginAt) }
        if let customData, !customData.isEmpty { d["customData"] = .document(customData) }
        return d
    }
}
