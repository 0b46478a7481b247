// SPDX-License-Identifier: Apache-2.0
/// `passkeys`: users' WebAuthn credentials, by app and credential id.
package enum PasskeysTable {
    package static let count: SQL = "SELECT COUNT(*) AS n FROM passkeys WHERE user_id = ?"
    package static let insert: SQL = """
        INSERT INTO passkeys (app_id, id, user_id, name, public_key, algorithm, sign_count, aaguid, transports,
            backup_eligible, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ p: PasskeyRecord) -> [SQLValue] {
        [
            .text(p.appId), .text(p.id), .text(p.userId), .text(p.name), .blob(p.publicKey), .integer(p.algorithm),
            .integer(p.signCount), .blob(p.aaguid), .text(p.transports.joined(separator: ",")), .bool(p.backupEligible),
            .integer(p.createdAt), .integer(p.lastUsedAt),
        ]
    }

    private static let columns = """
        SELECT app_id, id, user_id, name, public_key, algorithm, sign_count, aaguid, transports, backup_eligible, created_at,
            last_used_at FROM passkeys
        """

    package static func passkey<Row: SQLRow>(_ row: Row) throws -> PasskeyRecord {
        let transports = try row.text("transports")
        return PasskeyRecord(
            appId: try row.text("app_id"), id: try row.text("id"), userId: try row.text("user_id"), name: try row.text("name"),
            publicKey: try row.bytes("public_key"), algorithm: try row.int64("algorithm"), signCount: try row.int64("sign_count"),
            aaguid: try row.bytes("aaguid"), transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            backupEligible: try row.bool("backup_eligible"), createdAt: try row.int64("created_at"),
            lastUsedAt: try row.optionalInt64("last_used_at"))
    }

    package static let ofUser = SQL("\(columns) WHERE user_id = ? ORDER BY created_at, id")
    package static let byId = SQL("\(columns) WHERE app_id = ? AND id = ?")
    /// The passkeys of a page of users (export: app, cursor, page end).
    package static let ofUsers = SQL("\(columns) WHERE app_id = ? AND user_id > ? AND user_id <= ? ORDER BY user_id, created_at, id")
    /// Records a use: the counter must grow, unless the authenticator keeps none (0 and 0).
    package static let use: SQL = """
        UPDATE passkeys SET sign_count = ?, last_used_at = ? WHERE app_id = ? AND id = ? AND (sign_count < ? OR (sign_count = 0 AND ? = 0))
        RETURNING 1
        """
    package static let rename: SQL = "UPDATE passkeys SET name = ? WHERE app_id = ? AND id = ? AND user_id = ? RETURNING 1"
    package static let delete: SQL = "DELETE FROM passkeys WHERE app_id = ? AND id = ? AND user_id = ? RETURNING 1"
    /// The sessions a passkey opened (they end with it).
    package static let deleteSessions: SQL = "DELETE FROM sessions WHERE user_id = ? AND provider_type = 'passkey' AND identity_id = ?"
}

// MARK: the record

/// A user's passkey: the credential's id (base64url) and public key (COSE), and its counter.
public struct PasskeyRecord: Sendable, Equatable {
    public var appId: String
    /// The credential id, base64url.
    public var id: String
    public var userId: String
    public var name: String
    /// The COSE_Key as the authenticator gave it.
    public var publicKey: [UInt8]
    /// Its COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int64
    /// The signature counter last seen (0: the authenticator keeps none).
    public var signCount: Int64
    public var aaguid: [UInt8]
    public var transports: [String]
    /// Whether the credential may be synced to other devices (flag BE).
    public var backupEligible: Bool
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    /// The memberwise initialiser, for the whole package.
    package init(
        appId: String, id: String, userId: String, name: String, publicKey: [UInt8], algorithm: Int64, signCount: Int64, aaguid: [UInt8],
        transports: [String], backupEligible: Bool, createdAt: Int64, lastUsedAt: Int64? = nil
    ) {
        self.appId = appId
        self.id = id
        self.userId = userId
        self.name = name
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.aaguid = aaguid
        self.transports = transports
        self.backupEligible = backupEligible
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
