// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user of Auth0's bulk user export (a job of `POST /api/v2/jobs/users-exports` in its JSON
/// format: one object a line): `user_id`, `email`, `email_verified`, `name`, `given_name`,
/// `family_name`, `picture`, `created_at`, `last_login`, `blocked`, `app_metadata` (custom
/// data) and `identities` (`provider`, `user_id`, `connection`). The export holds no password
/// hashes: Auth0's support sends them in a file of their own (``Auth0Passwords``).
///
/// A database connection's identity (`auth0`) becomes the email/password account, with its
/// hash or without one (the person sets one through the reset flow); a social or enterprise
/// connection's, an identity of the provider of that name (`google-oauth2` is
/// `oauth2-google`); a passwordless one (`email`, `sms`) an account without a password or the
/// phone number.
enum Auth0Export {
    typealias Refused = ForeignExport.Refused

    static func user(_ d: EJSONDocument, passwords: Auth0Passwords?) throws(Refused) -> ForeignUser {
        let id = try ForeignExport.id(try ForeignExport.string(d, "user_id", max: 256), field: "user_id")
        var user = ForeignUser(id: id)
        user.disabled = ForeignExport.flag(d["blocked"]) == true
        user.createdAt = try ForeignExport.string(d, "created_at").flatMap(ForeignExport.seconds)
        user.lastLoginAt = try ForeignExport.string(d, "last_login").flatMap(ForeignExport.seconds)
        let given = try ForeignExport.string(d, "given_name"), family = try ForeignExport.string(d, "family_name")
        if let given { user.profile["first_name"] = .string(given) }
        if let family { user.profile["last_name"] = .string(family) }
        if let name = try ForeignExport.string(d, "name") ?? ForeignExport.name(given, family) { user.profile["name"] = .string(name) }
        if let picture = try ForeignExport.string(d, "picture") { user.profile["picture_url"] = .string(picture) }
        let email = try ForeignExport.string(d, "email", max: 254)
        if let email { user.profile["email"] = .string(email) }
        user.customData = d["app_metadata"]?.documentValue
        let verified = ForeignExport.flag(d["email_verified"]) ?? false

        guard case .array(let identities)? = d["identities"] ?? .array([]) else { throw Refused("'identities' must be an array") }
        for case .document(let i) in identities {
            guard let provider = try ForeignExport.string(i, "provider") else { throw Refused("an identity needs its 'provider'") }
            let subject = i["user_id"]?.stringValue ?? i["user_id"]?.integerValue.map { String($0) }
            switch provider {
            case "auth0", "email":
                guard let email else { throw Refused("a '\(provider)' identity needs the user's email") }
                let hash = provider == "auth0" ? passwords?.hash(userId: id, email: email) : nil
                user.account = (email, hash ?? PasswordHasher.noPassword, true, verified)
            case "sms":
                guard let number = try ForeignExport.string(d, "phone_number", max: 16) ?? subject else {
                    throw Refused("an 'sms' identity needs the user's phone_number")
                }
                user.identities.append((ProviderType.phone, number, nil))
            default:
                guard let type = ForeignExport.providerType(provider), let subject, !subject.isEmpty else {
                    throw Refused("identity of '\(provider.prefix(40))' needs its user_id")
                }
                user.identities.append((type, subject, verified ? email : nil))
            }
        }
        guard user.account != nil || !user.identities.isEmpty else { throw Refused("no identities: no way to sign in") }
        return user
    }
}

/// The password hashes file Auth0's support sends (one object a line: `_id` `{"$oid": ...}`,
/// `email`, `passwordHash`, `connection`), by the id each belongs to (`auth0|` and the
/// `$oid`) and by email. Held in memory while the users are read: about 200 bytes a user.
package struct Auth0Passwords: Sendable {
    private var byId: [String: String] = [:]
    private var byEmail: [String: String] = [:]

    package init() {}

    /// Takes one line of the file; `Refused` names what is missing.
    package mutating func add(_ d: EJSONDocument) throws(ForeignExport.Refused) {
        guard let hash = d["passwordHash"]?.stringValue, !hash.isEmpty else {
            throw ForeignExport.Refused("a line of the password file needs its 'passwordHash'")
        }
        // The user's id is `auth0|` and `alt_id` when the line has one (a user imported into
        // Auth0 with its own id), else `_id`'s ObjectId.
        if let alt = d["alt_id"]?.stringValue, !alt.isEmpty {
            byId["auth0|" + alt] = hash
        } else {
            switch d["_id"] {
            // Extended JSON, as the file writes it: an ObjectId.
            case .objectId(let oid)?: byId["auth0|" + oid.hex] = hash
            case .string(let oid)?: byId["auth0|" + oid] = hash
            default: break
            }
        }
        if let email = d["email"]?.stringValue { byEmail[email.lowercased()] = hash }
    }

    package var count: Int { Swift.max(byId.count, byEmail.count) }

    /// The hash of the user `userId`, or of its email when no line names the id.
    func hash(userId: String, email: String) -> String? {
        byId[userId] ?? byEmail[email.lowercased()]
    }
}
