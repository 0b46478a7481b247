// SPDX-License-Identifier: Apache-2.0
/// `api_keys`: user API keys (their digests), in creation order (`seq`).
package enum APIKeysTable {
    /// How many keys the user has, and the `seq` of the next.
    package static let countAndNext: SQL = "SELECT COUNT(*) AS count, COALESCE(MAX(seq), 0) + 1 AS next FROM api_keys WHERE user_id = ?"
    package static let insert: SQL = """
        INSERT INTO api_keys (id, app_id, user_id, name, digest, disabled, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ k: APIKeyRecord, seq: Int64) -> [SQLValue] {
        [
            .text(k.id), .text(k.appId), .text(k.userId), .text(k.name), .blob(k.digest), .bool(k.disabled),
            .integer(k.createdAt), .integer(seq),
        ]
    }

    private static let columns = "SELECT id, app_id, user_id, name, digest, disabled, created_at FROM api_keys"

    package static func key<Row: SQLRow>(_ row: Row) throws -> APIKeyRecord {
        APIKeyRecord(
            id: try row.text("id"), appId: try row.text("app_id"), userId: try row.text("user_id"), name: try row.text("name"),
            digest: try row.bytes("digest"), disabled: try row.bool("disabled"), createdAt: try row.int64("created_at"))
    }

    package static let ofUser = SQL("\(columns) WHERE user_id = ? ORDER BY seq")
    package static let oneOfUser = SQL("\(columns) WHERE id = ? AND user_id = ?")
    package static let byDigest = SQL("\(columns) WHERE digest = ? AND app_id = ?")
    package static let delete: SQL = "DELETE FROM api_keys WHERE id = ? AND user_id = ? RETURNING 1"
    package static let setDisabled: SQL = "UPDATE api_keys SET disabled = ? WHERE id = ? AND user_id = ? RETURNING 1"
}

// MARK: the record

/// A user API key; only its digest is stored.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var userId: String
    public var name: String
    public var digest: [UInt8]
    public var disabled: Bool
    public var createdAt: Int64

    /// The memberwise initialiser, for the whole package.
    package init(id: String, appId: String, userId: String, name: String, digest: [UInt8], disabled: Bool, createdAt: Int64) {
        self.id = id
        self.appId = appId
        self.userId = userId
        self.name = name
        self.digest = digest
        self.disabled = disabled
        self.createdAt = createdAt
    }
}
