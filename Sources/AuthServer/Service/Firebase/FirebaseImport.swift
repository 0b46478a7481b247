// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation

/// `accounts:batchCreate` of the Admin API (Firebase's user import) as authsh's records: each
/// `UserInfo` becomes a ``PortableUser`` (its password hash in a form of
/// ``ImportedPasswordHash``, or bcrypt's as it is), which the import writes as
/// `authsh admin import` does. A user that cannot come in is refused with the reason, alone:
/// the others still come in.
struct FirebaseImport: Sendable {
    /// The request's `hashAlgorithm` and its parameters, checked once for the whole request.
    enum Algorithm: Sendable, Equatable {
        case none
        case bcrypt
        case firebaseScrypt(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int)
        case standardScrypt(logN: Int, r: Int, p: Int, dkLen: Int)
        case pbkdf2(ImportedPasswordHash.Digest, rounds: Int)
        case hmac(ImportedPasswordHash.Digest, key: [UInt8], passwordFirst: Bool)
        case salted(ImportedPasswordHash.SaltedDigest, rounds: Int, passwordFirst: Bool)
    }

    /// The hash algorithms taken, by Firebase's names.
    static let algorithms = [
        "SCRYPT", "STANDARD_SCRYPT", "BCRYPT", "PBKDF_SHA1", "PBKDF2_SHA256", "HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512", "MD5",
        "SHA1", "SHA256", "SHA512",
    ]

    let algorithm: Algorithm
    let app: AppRuntime
    let now: Int64

    /// The request's hash options; `INVALID_HASH_ALGORITHM` and friends for what is not taken.
    init(_ body: EJSONDocument, app: AppRuntime, now: Int64) throws(FirebaseError) {
        self.app = app
        self.now = now
        func bytes(_ key: String) throws(FirebaseError) -> [UInt8] {
            guard let value = body[key], value != .null else { return [] }
            guard let text = value.stringValue, let decoded = Base64.decode(text) else {
                throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must be base64")
            }
            return decoded
        }
        func number(_ key: String) throws(FirebaseError) -> Int {
            guard let value = body[key], value != .null else { return 0 }
            guard let n = value.integerValue ?? value.stringValue.flatMap({ Int64($0) }), let int = Int(exactly: n) else {
                throw FirebaseError.invalid("INVALID_ARGUMENT", "'\(key)' must be an integer")
            }
            return int
        }
        guard let name = body["hashAlgorithm"]?.stringValue else {
            algorithm = .none
            return
        }
        switch name {
        case "BCRYPT": algorithm = .bcrypt
        case "SCRYPT":
            let key = try bytes("signerKey")
            guard !key.isEmpty else { throw FirebaseError.invalid("MISSING_SIGNER_KEY") }
            algorithm = .firebaseScrypt(
                signerKey: key, saltSeparator: try bytes("saltSeparator"), rounds: try number("rounds"), memoryCost: try number("memoryCost"))
        case "STANDARD_SCRYPT":
            let n = try number("cpuMemCost")
            guard n > 1, n & (n - 1) == 0 else { throw FirebaseError.invalid("INVALID_ARGUMENT", "cpuMemCost must be a power of two") }
            algorithm = .standardScrypt(
                logN: n.trailingZeroBitCount, r: try number("blockSize"), p: try number("parallelization"), dkLen: try number("dkLen"))
        case "PBKDF_SHA1": algorithm = .pbkdf2(.sha1, rounds: try number("rounds"))
        case "PBKDF2_SHA256": algorithm = .pbkdf2(.sha256, rounds: try number("rounds"))
        case "HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512":
            let key = try bytes("signerKey")
            guard !key.isEmpty else { throw FirebaseError.invalid("MISSING_SIGNER_KEY") }
            let digest: ImportedPasswordHash.Digest = name == "HMAC_SHA1" ? .sha1 : name == "HMAC_SHA256" ? .sha256 : .sha512
            algorithm = .hmac(digest, key: key, passwordFirst: body["passwordHashOrder"]?.stringValue != "SALT_AND_PASSWORD")
        case "MD5", "SHA1", "SHA256", "SHA512":
            let digest = ImportedPasswordHash.SaltedDigest(rawValue: name.lowercased()) ?? .sha256
            // Salt first unless the request says otherwise (the Admin SDKs cannot).
            algorithm = .salted(digest, rounds: try number("rounds"), passwordFirst: body["passwordHashOrder"]?.stringValue == "PASSWORD_AND_SALT")
        default:
            throw FirebaseError.invalid(
                "INVALID_HASH_ALGORITHM", "\(name) is not taken: \(Self.algorithms.joined(separator: ", ")) are")
        }
    }

    /// Why a user cannot come in (Firebase's per-user `error[].message`).
    struct Refused: Error, Sendable {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The stored form of an imported hash and salt.
    func storedHash(_ hash: [UInt8], salt: [UInt8]) throws(Refused) -> String {
        let imported: ImportedPasswordHash
        switch algorithm {
        case .none: throw Refused("a passwordHash needs the request's hashAlgorithm")
        case .bcrypt:
            let text = String(decoding: hash, as: UTF8.self)
            guard PasswordHasher.isBcrypt(text) else { throw Refused("the passwordHash is not a bcrypt hash") }
            guard PasswordHasher.isWithinCostLimits(text) else {
                throw Refused("the bcrypt cost is over \(PasswordHasher.CostLimits.bcryptCost)")
            }
            return text
        case .firebaseScrypt(let key, let separator, let rounds, let memoryCost):
            imported = .firebaseScrypt(signerKey: key, saltSeparator: separator, salt: salt, rounds: rounds, memoryCost: memoryCost, hash: hash)
        case .standardScrypt(let logN, let r, let p, let dkLen):
            guard dkLen == 0 || dkLen == hash.count else { throw Refused("the passwordHash is not dkLen bytes") }
            imported = .scrypt(logN: logN, r: r, p: p, salt: salt, hash: hash)
        case .pbkdf2(let digest, let rounds): imported = .pbkdf2(digest, rounds: rounds, salt: salt, hash: hash)
        case .hmac(let digest, let key, let passwordFirst):
            imported = .hmac(digest, key: key, salt: salt, passwordFirst: passwordFirst, hash: hash)
        case .salted(let digest, let rounds, let passwordFirst):
            imported = .salted(digest, rounds: rounds, passwordFirst: passwordFirst, salt: salt, hash: hash)
        }
        if let problem = imported.costProblem { throw Refused(problem) }
        return imported.encoded
    }

    /// One `UserInfo` of the request as a user to import.
    /// The `phone` identity of a number.
    static func phoneIdentity(_ number: String, app: AppRuntime) -> IdentityRecord {
        IdentityRecord(
            externalId: number, providerType: ProviderType.phone, providerId: app.providerId(ProviderType.phone),
            data: ["phone_number": .string(number)])
    }

    func user(_ item: EJSON) throws(Refused) -> PortableUser {
        guard case .document(let d) = item else { throw Refused("a user must be a JSON object") }
        func string(_ key: String, max: Int = 1024) throws(Refused) -> String? {
            guard let value = d[key], value != .null else { return nil }
            guard let text = value.stringValue, text.utf8.count <= max else { throw Refused("\(key) must be a string of at most \(max) bytes") }
            return text
        }
        func flag(_ key: String) throws(Refused) -> Bool? {
            guard let value = d[key], value != .null else { return nil }
            guard case .bool(let b) = value else { throw Refused("\(key) must be true or false") }
            return b
        }
        func millis(_ key: String) throws(Refused) -> Int64? {
            guard let value = d[key], value != .null else { return nil }
            guard let ms = value.integerValue ?? value.stringValue.flatMap({ Int64($0) }), ms >= 0 else {
                throw Refused("\(key) must be milliseconds since 1970")
            }
            return ms / 1000
        }
        func bytes(_ key: String) throws(Refused) -> [UInt8]? {
            guard let text = try string(key, max: 4096) else { return nil }
            guard let decoded = Base64.decode(text) else { throw Refused("\(key) must be base64") }
            return decoded
        }
        guard let localId = try string("localId", max: 128), !localId.isEmpty else { throw Refused("localId is missing") }
        guard FirebaseIdentities.isValidUid(localId) else { throw Refused("localId must be 1 to 128 bytes without control characters") }
        var profile: EJSONDocument = [:]
        if let name = try string("displayName") { profile["name"] = .string(name) }
        if let url = try string("photoUrl") { profile["picture_url"] = .string(url) }
        var user = UserRecord(
            id: localId, appId: app.id, data: profile, disabled: try flag("disabled") ?? false, createdAt: try millis("createdAt") ?? now)
        if let claims = try string("customAttributes", max: 4096) {
            do { user.customData = try FirebaseClaims.parse(claims) } catch { throw Refused(error.message) }
        }
        // `firebase auth:export` writes the Admin API's `lastLoginAt` as `lastSignedInAt`.
        let lastLogin = try millis("lastLoginAt"), lastSignedIn = try millis("lastSignedInAt")
        var portable = PortableUser(user: user, lastLoginAt: lastLogin ?? lastSignedIn)
        portable.phones = try Self.phoneFactors(d["mfaInfo"], user: localId, app: app.id, now: now)
        if let email = try string("email") {
            do { try Emails.check(email) } catch { throw Refused("email is invalid") }
            let verified = try flag("emailVerified") ?? false
            let hash = try bytes("passwordHash").map { hash throws(Refused) in try storedHash(hash, salt: try bytes("salt") ?? []) }
            guard app.config.providers.userpass != nil else { throw Refused("email/password sign-in is off for this app") }
            let identityId = ObjectId(seconds: UInt32(truncatingIfNeeded: now)).hex
            var identity = IdentityRecord(
                externalId: identityId, providerType: ProviderType.userpass, providerId: app.providerId(ProviderType.userpass),
                data: ["email": .string(email)])
            identity.email = verified && LoginService.userpassVouches(app) ? Emails.vouched(email) : nil
            portable.user.identities.append(identity)
            portable.user.data["email"] = .string(email)
            portable.accounts.append(
                UserpassAccount(
                    appId: app.id, email: email, passwordHash: hash ?? PasswordHasher.noPassword, identityId: identityId, confirmed: true,
                    createdAt: user.createdAt, emailVerified: verified))
        } else if d["passwordHash"] != nil {
            throw Refused("a passwordHash needs an email")
        }
        if let number = try string("phoneNumber", max: 16) {
            guard AppConfiguration.Phone.isValid(number) else { throw Refused("phoneNumber must be an E.164 number (+ and 7 to 15 digits)") }
            portable.user.identities.append(Self.phoneIdentity(number, app: app))
        }
        guard case .array(let providers)? = d["providerUserInfo"] ?? .array([]) else { throw Refused("providerUserInfo must be an array") }
        for case .document(let info) in providers {
            guard let providerId = info["providerId"]?.stringValue, let rawId = info["rawId"]?.stringValue, !rawId.isEmpty else {
                throw Refused("federatedId or (providerId & rawId) is required")
            }
            if providerId == "password" || providerId == "phone" { continue }
            guard let type = FirebaseIdentities.providerType(providerId) else {
                throw Refused("provider \(providerId) has no authsh provider")
            }
            var data: EJSONDocument = [:]
            if let email = info["email"]?.stringValue { data["email"] = .string(email) }
            portable.user.identities.append(IdentityRecord(externalId: rawId, providerType: type, providerId: app.providerId(type), data: data))
        }
        return portable
    }
    /// A user's `mfaInfo` (Firebase's `MfaEnrollment`s) as phone factors: `phoneInfo` (E.164),
    /// `displayName`, `enrolledAt` (RFC 3339) and `mfaEnrollmentId` (made when missing). TOTP
    /// factors are not imported: their secrets never leave Firebase.
    static func phoneFactors(_ value: EJSON?, user: String, app: String, now: Int64) throws(Refused) -> [PhoneFactor] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value, items.count <= 20 else { throw Refused("mfaInfo must be an array of at most 20 factors") }
        var factors: [PhoneFactor] = []
        for (n, item) in items.enumerated() {
            guard case .document(let m) = item, let number = m["phoneInfo"]?.stringValue else {
                throw Refused("mfaInfo[\(n)]: only phone factors (phoneInfo) are imported")
            }
            guard AppConfiguration.Phone.isValid(number), !factors.contains(where: { $0.phoneNumber == number }) else {
                throw Refused("mfaInfo[\(n)].phoneInfo must be an E.164 number (+ and 7 to 15 digits), once")
            }
            let id = m["mfaEnrollmentId"]?.stringValue ?? Secrets.randomHex(bytes: 14)
            guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
                throw Refused("mfaInfo[\(n)].mfaEnrollmentId must be 1 to 128 printable characters")
            }
            let name = m["displayName"]?.stringValue
            guard (name?.count ?? 0) <= 100 else { throw Refused("mfaInfo[\(n)].displayName must be at most 100 characters") }
            var enrolled = now
            if let text = m["enrolledAt"]?.stringValue {
                guard let date = try? Date(text, strategy: .iso8601) else { throw Refused("mfaInfo[\(n)].enrolledAt must be an RFC 3339 time") }
                enrolled = Int64(date.timeIntervalSince1970)
            }
            factors.append(PhoneFactor(userId: user, appId: app, enrollmentId: id, phoneNumber: number, displayName: name, enrolledAt: enrolled))
        }
        return factors
    }
}
