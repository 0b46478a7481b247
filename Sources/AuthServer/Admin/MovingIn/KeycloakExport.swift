// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user of a Keycloak realm export (`kc.sh export --realm NAME --file realm.json`, or the
/// admin console's partial export with users): `id`, `username`, `email`, `emailVerified`,
/// `enabled`, `createdTimestamp` (ms), `firstName`, `lastName`, `realmRoles`, `attributes`,
/// `credentials` and `federatedIdentities`.
///
/// A password credential holds `secretData` (`{"value": HASH, "salt": SALT}`, base64) and
/// `credentialData` (`{"algorithm", "hashIterations", "additionalParameters"}`), each a JSON
/// string; exports of Keycloak before 12 hold `hashedSaltedValue`, `salt`, `hashIterations`
/// and `algorithm` in the credential itself. Read: `pbkdf2` (SHA-1), `pbkdf2-sha256`,
/// `pbkdf2-sha512` and `argon2` (Keycloak 25's default; its `type`, `version`, `memory`,
/// `parallelism` become a PHC string). Federated identities (`identityProvider`, `userId`)
/// become identities of the provider of the same alias.
enum KeycloakExport {
    typealias Refused = ForeignExport.Refused

    static func user(_ d: EJSONDocument) throws(Refused) -> ForeignUser {
        var user = ForeignUser(id: try ForeignExport.id(try ForeignExport.string(d, "id"), field: "id"))
        user.disabled = ForeignExport.flag(d["enabled"]) == false
        user.createdAt = ForeignExport.millis(d["createdTimestamp"])
        let given = try ForeignExport.string(d, "firstName"), family = try ForeignExport.string(d, "lastName")
        if let given { user.profile["first_name"] = .string(given) }
        if let family { user.profile["last_name"] = .string(family) }
        if let name = ForeignExport.name(given, family) { user.profile["name"] = .string(name) }
        let username = try ForeignExport.string(d, "username")
        let email = try ForeignExport.string(d, "email", max: 254) ?? username.flatMap { $0.contains("@") ? $0 : nil }
        if let email { user.profile["email"] = .string(email) }
        var custom: EJSONDocument = [:]
        if case .array(let roles)? = d["realmRoles"] {
            let kept = roles.compactMap(\.stringValue).filter { !$0.hasPrefix("default-roles-") }
            if !kept.isEmpty { custom["roles"] = .array(kept.map(EJSON.string)) }
        }
        if case .document(let attributes)? = d["attributes"], !attributes.isEmpty { custom["attributes"] = .document(attributes) }
        user.customData = custom

        let password = try passwordHash(d)
        if let email {
            let verified = ForeignExport.flag(d["emailVerified"]) ?? false
            user.account = (email, password ?? PasswordHasher.noPassword, true, verified)
        } else if password != nil {
            throw Refused("a password needs an email, and username '\(username?.prefix(40) ?? "")' is not one: authsh signs in by email")
        }
        if case .array(let links)? = d["federatedIdentities"] {
            for case .document(let link) in links {
                guard let alias = try ForeignExport.string(link, "identityProvider"), let type = ForeignExport.providerType(alias),
                    let subject = try ForeignExport.string(link, "userId", max: 512)
                else { throw Refused("a federated identity needs 'identityProvider' and 'userId'") }
                user.identities.append((type, subject, nil))
            }
        }
        guard user.account != nil || !user.identities.isEmpty else {
            throw Refused("no email and no federated identity: no way to sign in")
        }
        return user
    }

    /// The user's password credential as a hash authsh verifies, or nil when it has none.
    static func passwordHash(_ d: EJSONDocument) throws(Refused) -> String? {
        guard case .array(let credentials)? = d["credentials"] else { return nil }
        for case .document(let c) in credentials where c["type"]?.stringValue == "password" {
            var secret: EJSONDocument = [:], data: EJSONDocument = [:]
            if let text = c["secretData"]?.stringValue {
                guard case .document(let s)? = try? EJSON(parsing: Array(text.utf8)),
                    let dataText = c["credentialData"]?.stringValue,
                    case .document(let cd)? = try? EJSON(parsing: Array(dataText.utf8))
                else { throw Refused("'credentials[].secretData' and 'credentialData' must hold JSON objects") }
                (secret, data) = (s, cd)
            } else {
                // Before Keycloak 12: the fields in the credential itself.
                secret = ["value": c["hashedSaltedValue"] ?? .null, "salt": c["salt"] ?? .null]
                data = ["algorithm": c["algorithm"] ?? .null, "hashIterations": c["hashIterations"] ?? .null]
            }
            guard let value = secret["value"]?.stringValue, let hash = Base64.decode(value), !hash.isEmpty,
                let saltText = secret["salt"]?.stringValue, let salt = Base64.decode(saltText)
            else { throw Refused("a password credential needs a base64 'value' and 'salt'") }
            let algorithm = data["algorithm"]?.stringValue ?? "pbkdf2-sha256"
            let iterations = data["hashIterations"]?.integerValue ?? 0
            switch algorithm {
            case "pbkdf2", "pbkdf2-sha256", "pbkdf2-sha512":
                let digest: ImportedPasswordHash.Digest =
                    algorithm == "pbkdf2" ? .sha1 : algorithm == "pbkdf2-sha256" ? .sha256 : .sha512
                guard iterations > 0, iterations <= 10_000_000 else { throw Refused("hashIterations must be a positive number") }
                return ImportedPasswordHash.pbkdf2(digest, rounds: Int(iterations), salt: salt, hash: hash).encoded
            case "argon2":
                return try argon2(hash: hash, salt: salt, iterations: iterations, data["additionalParameters"]?.documentValue ?? [:])
            default:
                throw Refused("password algorithm '\(algorithm.prefix(40))' is not read (pbkdf2, pbkdf2-sha256, pbkdf2-sha512, argon2 are)")
            }
        }
        return nil
    }

    /// Keycloak's Argon2 parameters (each a list of one string: `type` `id`, `i` or `d`,
    /// `version` `1.3`, `memory` in KiB, `parallelism`) as a PHC string.
    static func argon2(hash: [UInt8], salt: [UInt8], iterations: Int64, _ parameters: EJSONDocument) throws(Refused) -> String {
        func parameter(_ name: String, _ fallback: String) -> String {
            parameters[name]?.arrayValue?.first?.stringValue ?? parameters[name]?.stringValue ?? fallback
        }
        guard let variant = ["id": "argon2id", "i": "argon2i", "d": "argon2d"][parameter("type", "id")] else {
            throw Refused("argon2 'type' must be id, i or d")
        }
        guard parameter("version", "1.3") == "1.3" else { throw Refused("argon2 'version' must be 1.3 (19)") }
        guard let memory = UInt64(parameter("memory", "7168")), let lanes = UInt64(parameter("parallelism", "1")), iterations > 0
        else { throw Refused("argon2 'memory', 'parallelism' and hashIterations must be numbers") }
        func b64(_ bytes: [UInt8]) -> String { String(Base64.encode(bytes).prefix { $0 != "=" }) }
        return "$\(variant)$v=19$m=\(memory),t=\(iterations),p=\(lanes)$\(b64(salt))$\(b64(hash))"
    }
}
