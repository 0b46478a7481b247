// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// One line of an export or import (NDJSON, one JSON object per line):
///
/// - a user: `{"id", "type", "disabled", "createdAt", "lastLoginAt", "data", "customData",
///   "identities": [{"providerType", "externalId", "email", "data"}], "accounts": [{"email",
///   "passwordHash", "confirmed", "createdAt", "identityId", "emailVerified"}]}`, each account belonging to one
///   of the line's `local-userpass` identities; and, when the user has them, `totp`,
///   `recoveryCodes` and `passkeys` (``TransferLine/factors(_:)``);
/// - an email/password account no user holds yet (registered, never logged in):
///   `{"account": {...}}`.
///
/// Password hashes come in the forms ``ForeignPasswordHash`` reads (Argon2, `crypt(3)`,
/// Django's, the forms of ``ImportedPasswordHash``), or `!` (an account made without a
/// password); they are stored in authsh's form of each and exported so. Times are unix seconds. Each app's `providerId` is derived from
/// the app, so it is not carried.
enum TransferLine {
    enum Parsed: Sendable {
        case user(PortableUser)
        case account(UserpassAccount)
        /// An export's last line, `{"end": {"users": N, "accounts": M}}`: how many lines came
        /// before it, so that a cut file is told from a whole one.
        case end(users: Int, accounts: Int)
    }

    /// What is wrong with a line, in words that name the field.
    struct Invalid: Error, Sendable {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    // MARK: Writing

    static func line(_ p: PortableUser) -> [UInt8] {
        let u = p.user
        let doc: EJSONDocument = [
            "id": .string(u.id), "type": .string(u.type), "disabled": .bool(u.disabled), "createdAt": .int64(u.createdAt),
            "lastLoginAt": p.lastLoginAt.map(EJSON.int64) ?? .null, "data": .document(u.data),
            "customData": u.customData.map(EJSON.document) ?? .null,
            "identities": .array(
                u.identities.map { i in
                    [
                        "providerType": .string(i.providerType), "externalId": .string(i.externalId),
                        "email": i.email.map(EJSON.string) ?? .null, "data": .document(i.data),
                    ]
                }),
            "accounts": .array(p.accounts.map(account)),
        ]
        var line = doc
        for (key, value) in factors(p) { line[key] = value }
        return EJSON.document(line).encoded(.relaxed) + [10]
    }

    static func end(users: Int, accounts: Int) -> [UInt8] {
        EJSON.document(["end": ["users": .int64(Int64(users)), "accounts": .int64(Int64(accounts))]]).encoded(.relaxed) + [10]
    }

    static func line(account a: UserpassAccount) -> [UInt8] {
        EJSON.document(["account": account(a)]).encoded(.relaxed) + [10]
    }

    private static func account(_ a: UserpassAccount) -> EJSON {
        var d: EJSONDocument = [
            "email": .string(a.email), "passwordHash": .string(a.passwordHash), "confirmed": .bool(a.confirmed),
            "createdAt": .int64(a.createdAt), "identityId": .string(a.identityId),
        ]
        // Written only when false: an unproven email stays unproven through an export.
        if !a.emailVerified { d["emailVerified"] = false }
        return .document(d)
    }

    // MARK: Reading

    /// Parses and checks one line for app `app`; `providerId` gives the app's id of a provider.
    /// A user or account without `createdAt` is made `now` (not at 0: the oldest holder of an
    /// email is the one a sign-in with that email joins, and a sweep counts anonymous users' age).
    static func parse(_ bytes: ArraySlice<UInt8>, app: String, now: Int64, providerId: (String) -> String) throws(Invalid) -> Parsed {
        let value: EJSON
        do { value = try EJSON(parsing: Array(bytes)) } catch { throw Invalid("not JSON: \(error)") }
        guard case .document(let d) = value else { throw Invalid("not a JSON object") }
        if let end = d["end"] {
            guard d.count == 1, case .document(let e) = end, let users = e["users"]?.integerValue, let accounts = e["accounts"]?.integerValue,
                e.count == 2, users >= 0, accounts >= 0
            else {
                throw Invalid("an end line is {\"end\": {\"users\": N, \"accounts\": M}}")
            }
            return .end(users: Int(users), accounts: Int(accounts))
        }
        if let account = d["account"] {
            guard d.count == 1 else { throw Invalid("an account line has only the key 'account'") }
            return .account(try parseAccount(account, app: app, now: now, path: "account"))
        }
        try known(
            d, Set(["id", "type", "disabled", "createdAt", "lastLoginAt", "data", "customData", "identities", "accounts"]).union(factorKeys),
            path: "")
        // authsh's ids are 24 hex digits; another system's (a UUID, `auth0|...`) are kept as
        // Firebase's uids are: 1 to 128 bytes without control characters.
        let id = try string(d, "id", path: "", max: 128)
        guard FirebaseIdentities.isValidUid(id) else { throw Invalid("'id' must be 1 to 128 bytes without control characters") }
        let type = try optionalString(d, "type", path: "") ?? "normal"
        guard type == "normal" || type == "server" else { throw Invalid("'type' must be normal or server") }
        let customData = try document(d, "customData", path: "")
        if let customData, let problem = CustomDataLimits.problem(customData) { throw Invalid("'customData': \(problem)") }
        var user = UserRecord(
            id: id, appId: app, type: type, data: try document(d, "data", path: "") ?? [:],
            customData: customData, disabled: try bool(d, "disabled", path: "") ?? false,
            createdAt: try time(d, "createdAt", path: "") ?? now)
        guard case .array(let identities)? = d["identities"], !identities.isEmpty else {
            throw Invalid("'identities' must be a non-empty array")
        }
        for (n, item) in identities.enumerated() {
            let path = "identities[\(n)]."
            guard case .document(let i) = item else { throw Invalid("'\(path.dropLast())' must be an object") }
            try known(i, ["providerType", "externalId", "email", "data", "providerId"], path: path)
            let providerType = try string(i, "providerType", path: path, max: 64)
            let externalId = try string(i, "externalId", path: path, max: 512)
            guard !user.identities.contains(where: { $0.providerType == providerType && $0.externalId == externalId }) else {
                throw Invalid("'\(path)externalId' repeats an identity of this user")
            }
            let email = try optionalString(i, "email", path: path).map { $0.lowercased() }
            user.identities.append(
                IdentityRecord(
                    externalId: externalId, providerType: providerType, providerId: providerId(providerType),
                    data: try document(i, "data", path: path) ?? [:], email: email))
        }
        var accounts: [UserpassAccount] = []
        if let list = d["accounts"], list != .null {
            guard case .array(let items) = list else { throw Invalid("'accounts' must be an array") }
            for (n, item) in items.enumerated() {
                let account = try parseAccount(item, app: app, now: now, path: "accounts[\(n)]")
                guard user.identities.contains(where: { $0.providerType == ProviderType.userpass && $0.externalId == account.identityId }) else {
                    throw Invalid("'accounts[\(n)].identityId' is not one of this user's local-userpass identities")
                }
                accounts.append(account)
            }
        }
        var portable = PortableUser(user: user, lastLoginAt: try time(d, "lastLoginAt", path: ""), accounts: accounts)
        try parseFactors(d, into: &portable, app: app, now: now)
        return .user(portable)
    }

    private static func parseAccount(_ value: EJSON, app: String, now: Int64, path: String) throws(Invalid) -> UserpassAccount {
        guard case .document(let a) = value else { throw Invalid("'\(path)' must be an object") }
        let p = path + "."
        try known(a, ["email", "passwordHash", "confirmed", "createdAt", "identityId", "emailVerified"], path: p)
        let email = try string(a, "email", path: p, max: 254)
        guard email.contains("@"), !email.contains(where: { $0.isWhitespace }) else { throw Invalid("'\(p)email' is not an email address") }
        let given = try string(a, "passwordHash", path: p, max: 8192)
        guard let hash = given == PasswordHasher.noPassword ? given : ForeignPasswordHash.stored(given) else {
            throw Invalid(
                "'\(p)passwordHash' must be an Argon2 PHC string ($argon2id$, $argon2i$, $argon2d$, v=19), a crypt(3) hash "
                    + "(bcrypt $2a$, $2b$, $2y$; SHA-crypt $5$, $6$; MD5-crypt $1$; yescrypt $y$), Django's (pbkdf2_sha256$, "
                    + "pbkdf2_sha1$, argon2$, bcrypt$, bcrypt_sha256$), an imported hash ($firebase-scrypt$, $scrypt$, $pbkdf2-..., "
                    + "$hmac-..., $salted-...) or \"!\" (no password)")
        }
        guard hash == PasswordHasher.noPassword || PasswordHasher.isWithinCostLimits(hash) else {
            let l = PasswordHasher.CostLimits.self
            throw Invalid(
                "'\(p)passwordHash' costs too much to verify (the most: Argon2 m=\(l.argon2MemoryKiB),t=\(l.argon2Iterations),p=\(l.argon2Parallelism); "
                    + "bcrypt cost \(l.bcryptCost); SHA-crypt and PBKDF2 1,000,000 rounds; scrypt 256 MiB)"
            )
        }
        let identityId = try string(a, "identityId", path: p, max: 512)
        return UserpassAccount(
            appId: app, email: email, passwordHash: hash, identityId: identityId,
            confirmed: try bool(a, "confirmed", path: p) ?? true, createdAt: try time(a, "createdAt", path: p) ?? now,
            emailVerified: try bool(a, "emailVerified", path: p) ?? true)
    }

    static func known(_ d: EJSONDocument, _ keys: Set<String>, path: String) throws(Invalid) {
        for key in d.keys where !keys.contains(key) { throw Invalid("unknown key '\(path)\(key)'") }
    }

    static func string(_ d: EJSONDocument, _ key: String, path: String, max: Int) throws(Invalid) -> String {
        guard case .string(let s)? = d[key], !s.isEmpty, s.utf8.count <= max else {
            throw Invalid("'\(path)\(key)' must be a string of 1 to \(max) bytes")
        }
        return s
    }

    static func optionalString(_ d: EJSONDocument, _ key: String, path: String) throws(Invalid) -> String? {
        switch d[key] {
        case nil, .null?: return nil
        case .string(let s)? where !s.isEmpty && s.utf8.count <= 1024: return s
        default: throw Invalid("'\(path)\(key)' must be a string or null")
        }
    }

    static func bool(_ d: EJSONDocument, _ key: String, path: String) throws(Invalid) -> Bool? {
        switch d[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: throw Invalid("'\(path)\(key)' must be true or false")
        }
    }

    static func time(_ d: EJSONDocument, _ key: String, path: String) throws(Invalid) -> Int64? {
        switch d[key] {
        case nil, .null?: return nil
        case let v?:
            guard let n = v.integerValue, n >= 0 else { throw Invalid("'\(path)\(key)' must be unix seconds") }
            return n
        }
    }

    static func document(_ d: EJSONDocument, _ key: String, path: String) throws(Invalid) -> EJSONDocument? {
        switch d[key] {
        case nil, .null?: return nil
        case .document(let doc)?: return doc
        default: throw Invalid("'\(path)\(key)' must be an object or null")
        }
    }
}
