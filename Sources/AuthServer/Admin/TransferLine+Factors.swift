// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// A user line's second factors and passkeys, so that a move to another server keeps them:
///
/// - `totp`: `{"secret": base64, "confirmedAt", "lastStep", "createdAt"}`, the shared secret
///   as it is (an export holds it: the file is 0600, as it holds password hashes too);
/// - `phones`: `[{"id", "phoneNumber", "displayName", "enrolledAt"}]`, numbers enrolled as
///   second factors (E.164);
/// - `recoveryCodes`: the base64 SHA-256 digests of the unused codes (the codes were never kept);
/// - `passkeys`: `[{"id", "name", "publicKey", "algorithm", "signCount", "aaguid",
///   "transports", "backupEligible", "createdAt", "lastUsedAt"}]`, ids base64url and keys
///   base64 (public keys only: no private key ever reaches the server).
///
/// An import checks each as the server would when it made it: a secret of 16 to 64 bytes,
/// 32-byte digests, a public key that is a COSE key of an accepted algorithm.
extension TransferLine {
    static let factorKeys: Set<String> = ["totp", "phones", "recoveryCodes", "passkeys"]

    static func factors(_ p: PortableUser) -> EJSONDocument {
        var d = EJSONDocument()
        if let t = p.totp {
            d["totp"] = [
                "secret": .string(Base64.encode(t.secret)), "confirmedAt": t.confirmedAt.map(EJSON.int64) ?? .null,
                "lastStep": .int64(t.lastStep), "createdAt": .int64(t.createdAt),
            ]
        }
        if !p.phones.isEmpty {
            d["phones"] = .array(
                p.phones.map { f in
                    [
                        "id": .string(f.enrollmentId), "phoneNumber": .string(f.phoneNumber), "displayName": f.displayName.map(EJSON.string) ?? .null,
                        "enrolledAt": .int64(f.enrolledAt),
                    ]
                })
        }
        if !p.recoveryCodes.isEmpty { d["recoveryCodes"] = .array(p.recoveryCodes.map { .string(Base64.encode($0)) }) }
        if !p.passkeys.isEmpty {
            d["passkeys"] = .array(
                p.passkeys.map { k in
                    [
                        "id": .string(k.id), "name": .string(k.name), "publicKey": .string(Base64.encode(k.publicKey)),
                        "algorithm": .int64(k.algorithm), "signCount": .int64(k.signCount), "aaguid": .string(Base64.encode(k.aaguid)),
                        "transports": .array(k.transports.map(EJSON.string)), "backupEligible": .bool(k.backupEligible),
                        "createdAt": .int64(k.createdAt), "lastUsedAt": k.lastUsedAt.map(EJSON.int64) ?? .null,
                    ]
                })
        }
        return d
    }

    static func parseFactors(_ d: EJSONDocument, into p: inout PortableUser, app: String, now: Int64) throws(Invalid) {
        if let value = d["totp"], value != .null {
            guard case .document(let t) = value else { throw Invalid("'totp' must be an object or null") }
            try known(t, ["secret", "confirmedAt", "lastStep", "createdAt"], path: "totp.")
            guard let secret = Base64.decode(try string(t, "secret", path: "totp.", max: 128)), (16...64).contains(secret.count) else {
                throw Invalid("'totp.secret' must be base64 of 16 to 64 bytes")
            }
            p.totp = TOTPFactor(
                userId: p.user.id, appId: app, secret: secret, confirmedAt: try time(t, "confirmedAt", path: "totp."),
                lastStep: try time(t, "lastStep", path: "totp.") ?? 0, createdAt: try time(t, "createdAt", path: "totp.") ?? now)
        }
        if let value = d["phones"], value != .null {
            guard case .array(let items) = value, items.count <= 20 else { throw Invalid("'phones' must be an array of at most 20") }
            for (n, item) in items.enumerated() {
                let path = "phones[\(n)]."
                guard case .document(let f) = item else { throw Invalid("'phones[\(n)]' must be an object") }
                try known(f, ["id", "phoneNumber", "displayName", "enrolledAt"], path: path)
                let id = try string(f, "id", path: path, max: 128)
                guard !id.isEmpty, id.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { throw Invalid("'\(path)id' must be printable ASCII") }
                let number = try string(f, "phoneNumber", path: path, max: 16)
                guard AppConfiguration.Phone.isValid(number), !p.phones.contains(where: { $0.phoneNumber == number || $0.enrollmentId == id }) else {
                    throw Invalid("'\(path)phoneNumber' must be an E.164 number (+ and 7 to 15 digits), once, and 'id' once")
                }
                let name = try optionalString(f, "displayName", path: path)
                guard (name?.count ?? 0) <= 100 else { throw Invalid("'\(path)displayName' must be at most 100 characters") }
                p.phones.append(
                    PhoneFactor(
                        userId: p.user.id, appId: app, enrollmentId: id, phoneNumber: number, displayName: name,
                        enrolledAt: try time(f, "enrolledAt", path: path) ?? now))
            }
        }
        if let value = d["recoveryCodes"], value != .null {
            guard case .array(let items) = value, items.count <= 100 else { throw Invalid("'recoveryCodes' must be an array of at most 100") }
            guard p.totp?.confirmedAt != nil else { throw Invalid("'recoveryCodes' come with a confirmed 'totp'") }
            for (n, item) in items.enumerated() {
                guard let digest = item.stringValue.flatMap(Base64.decode), digest.count == 32, !p.recoveryCodes.contains(digest) else {
                    throw Invalid("'recoveryCodes[\(n)]' must be base64 of a 32-byte digest, once")
                }
                p.recoveryCodes.append(digest)
            }
        }
        if let value = d["passkeys"], value != .null {
            guard case .array(let items) = value, items.count <= PasskeyService.perUser else {
                throw Invalid("'passkeys' must be an array of at most \(PasskeyService.perUser)")
            }
            for (n, item) in items.enumerated() { p.passkeys.append(try passkey(item, user: p.user.id, app: app, now: now, path: "passkeys[\(n)].")) }
        }
    }

    private static func passkey(_ item: EJSON, user: String, app: String, now: Int64, path: String) throws(Invalid) -> PasskeyRecord {
        guard case .document(let k) = item else { throw Invalid("'\(path.dropLast())' must be an object") }
        try known(
            k, ["id", "name", "publicKey", "algorithm", "signCount", "aaguid", "transports", "backupEligible", "createdAt", "lastUsedAt"],
            path: path)
        let id = try string(k, "id", path: path, max: 1400)
        guard let raw = Base64.decode(id), !raw.isEmpty, raw.count <= AuthenticatorData.maxCredentialIdLength,
            Base64.encode(raw, urlSafe: true) == id
        else { throw Invalid("'\(path)id' must be a base64url credential id") }
        guard let publicKey = Base64.decode(try string(k, "publicKey", path: path, max: 2048)),
            let item = try? CBORDecoder.decode(publicKey), let key = try? COSEKey(item)
        else { throw Invalid("'\(path)publicKey' must be base64 of a COSE key (ES256, EdDSA or RS256)") }
        guard k["algorithm"]?.integerValue == key.algorithm.rawValue else { throw Invalid("'\(path)algorithm' is not the key's") }
        let aaguid = Base64.decode(try optionalString(k, "aaguid", path: path) ?? "") ?? []
        guard aaguid.isEmpty || aaguid.count == 16 else { throw Invalid("'\(path)aaguid' must be base64 of 16 bytes") }
        let name = try string(k, "name", path: path, max: 400)
        guard name.count <= 100 else { throw Invalid("'\(path)name' must be at most 100 characters") }
        let transports = k["transports"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard transports.count <= 8, transports.allSatisfy({ (1...32).contains($0.count) && $0.allSatisfy { ($0 >= "a" && $0 <= "z") || $0 == "-" } })
        else { throw Invalid("'\(path)transports' must be at most 8 lowercase names") }
        return PasskeyRecord(
            appId: app, id: id, userId: user, name: name, publicKey: publicKey, algorithm: key.algorithm.rawValue,
            signCount: try time(k, "signCount", path: path) ?? 0, aaguid: aaguid.isEmpty ? Array(repeating: 0, count: 16) : aaguid,
            transports: transports, backupEligible: try bool(k, "backupEligible", path: path) ?? false,
            createdAt: try time(k, "createdAt", path: path) ?? now, lastUsedAt: try time(k, "lastUsedAt", path: path))
    }
}
