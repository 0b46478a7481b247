// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user of `aws cognito-idp list-users --user-pool-id POOL` (`{"Users": [...]}`):
/// `Username`, `Attributes` (`[{"Name", "Value"}]`: `sub`, `email`, `email_verified`, `name`,
/// `given_name`, `family_name`, `picture`, `phone_number`, `phone_number_verified`,
/// `identities`, `custom:NAME`), `UserCreateDate`, `Enabled` and `UserStatus`.
///
/// Cognito exports no password hashes: a user of the pool's own directory comes in with an
/// email/password account without a password and sets one through the reset flow. The id is
/// the `sub`. A federated user (`EXTERNAL_PROVIDER`) comes in with its `identities`
/// (`providerName` `Google` is `oauth2-google`, `SignInWithApple` `oauth2-apple`, any other
/// name the app's provider of that name); custom attributes become custom data.
enum CognitoExport {
    typealias Refused = ForeignExport.Refused

    static func user(_ d: EJSONDocument) throws(Refused) -> ForeignUser {
        var attributes: [String: String] = [:]
        guard case .array(let list)? = d["Attributes"] ?? .array([]) else { throw Refused("'Attributes' must be an array") }
        for case .document(let a) in list {
            guard let name = a["Name"]?.stringValue, let value = a["Value"]?.stringValue else {
                throw Refused("each of 'Attributes' needs 'Name' and 'Value'")
            }
            attributes[name] = value
        }
        let username = try ForeignExport.string(d, "Username", max: 256)
        var user = ForeignUser(id: try ForeignExport.id(attributes["sub"] ?? username, field: "sub"))
        user.disabled = ForeignExport.flag(d["Enabled"]) == false
        user.createdAt = try ForeignExport.string(d, "UserCreateDate").flatMap(ForeignExport.seconds)
        let given = attributes["given_name"], family = attributes["family_name"]
        if let given { user.profile["first_name"] = .string(given) }
        if let family { user.profile["last_name"] = .string(family) }
        if let name = attributes["name"] ?? ForeignExport.name(given, family) { user.profile["name"] = .string(name) }
        if let picture = attributes["picture"] { user.profile["picture_url"] = .string(picture) }
        let email = attributes["email"].flatMap { $0.isEmpty ? nil : $0 }
        if let email { user.profile["email"] = .string(email) }
        var custom: EJSONDocument = [:]
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) where name.hasPrefix("custom:") {
            custom[String(name.dropFirst(7))] = .string(value)
        }
        user.customData = custom
        let verified = ForeignExport.flag(attributes["email_verified"].map(EJSON.string)) ?? false
        let status = try ForeignExport.string(d, "UserStatus") ?? "CONFIRMED"

        if let text = attributes["identities"] {
            guard case .array(let links)? = try? EJSON(parsing: Array(text.utf8)) else {
                throw Refused("the 'identities' attribute must hold a JSON array")
            }
            for case .document(let link) in links {
                guard let provider = link["providerName"]?.stringValue, let type = ForeignExport.providerType(provider),
                    let subject = link["userId"]?.stringValue, !subject.isEmpty
                else { throw Refused("each of 'identities' needs 'providerName' and 'userId'") }
                user.identities.append((type, subject, verified ? email : nil))
            }
        }
        if status != "EXTERNAL_PROVIDER", let email {
            user.account = (email, PasswordHasher.noPassword, status != "UNCONFIRMED", verified)
        }
        if let number = attributes["phone_number"], ForeignExport.flag(attributes["phone_number_verified"].map(EJSON.string)) == true {
            user.identities.append((ProviderType.phone, number, nil))
        }
        guard user.account != nil || !user.identities.isEmpty else {
            throw Refused("no email, no verified phone number and no identities: no way to sign in")
        }
        return user
    }
}
