// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// `sessions`: logins, the server side of refresh tokens (their digests).
package enum SessionsTable {
    package static let insert: SQL = """
        INSERT INTO sessions (id, app_id, user_id, device_id, provider_type, identity_id, refresh_digest, created_at, expires_at, amr, claims)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ s: SessionRecord) -> [SQLValue] {
        [
            .text(s.id), .text(s.appId), .text(s.userId), .text(s.deviceId), .text(s.providerType), .text(s.identityId),
            .blob(s.refreshDigest), .integer(s.createdAt), .integer(s.expiresAt), .text(s.methods.joined(separator: " ")),
            s.claims.map { $0.sqlValue } ?? .null,
        ]
    }

    private static let columns = """
        s.id, s.app_id, s.user_id, s.device_id, s.provider_type, s.identity_id, s.refresh_digest, s.created_at,
        s.expires_at, s.last_used, s.amr, s.claims
        """

    package static func session<Row: SQLRow>(_ row: Row) throws -> SessionRecord {
        SessionRecord(
            id: try row.text("id"), appId: try row.text("app_id"), userId: try row.text("user_id"),
            deviceId: try row.text("device_id"), providerType: try row.text("provider_type"),
            identityId: try row.text("identity_id"), refreshDigest: try row.bytes("refresh_digest"),
            createdAt: try row.int64("created_at"), expiresAt: try row.optionalInt64("expires_at"),
            lastUsed: try row.optionalInt64("last_used"), methods: (try row.optionalText("amr") ?? "").split(separator: " ").map(String.init),
            claims: try row.document("claims"))
    }

    /// The session and its user in one statement (a refresh's read).
    package static let withUser = SQL(
        """
        SELECT \(columns), u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at AS user_created_at
        FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id WHERE s.id = ?
        """)

    /// A refresh's read that marks the session used, in one statement (PostgreSQL only: a
    /// data-modifying `WITH`). The session and its user are read once; the mark is written only
    /// when the refresh will be answered (the token's digest is the session's, the session has
    /// not expired, its user is not disabled) and the last use is due, and the answer is the
    /// session as it was before it. Arguments: id, now, digest, due (the latest last use that is
    /// marked again), now.
    package static let withUserMarkingUse = SQL("\(markingUse)\nSELECT * FROM found")

    /// The read-and-mark of ``withUserMarkingUse`` and ``withUserAndIdentitiesMarkingUse``: the
    /// session and its user as `found`, the mark in `used`.
    private static let markingUse = """
        WITH found AS (
            SELECT \(columns), u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at AS user_created_at
            FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id WHERE s.id = ?),
        used AS (
            UPDATE sessions SET last_used = ? FROM found WHERE sessions.id = found.id AND found.refresh_digest = ?
            AND coalesce(found.last_used, found.created_at) <= ? AND (found.expires_at IS NULL OR found.expires_at > ?)
            AND NOT found.disabled RETURNING 1)
        """

    /// The identity columns a read with identities adds (the user's, one row each, in order).
    private static let identityColumns = """
        i.provider_type AS identity_provider_type, i.external_id AS identity_external_id,
        i.provider_id AS identity_provider_id, i.data AS identity_data, i.email AS identity_email
        """

    /// ``withUser`` with the user's identities, one row each (another API's refresh: its tokens
    /// name them).
    package static let withUserAndIdentities = SQL(
        """
        SELECT \(columns), u.type, u.data AS user_data, u.custom_data, u.disabled, u.created_at AS user_created_at,
               \(identityColumns)
        FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id
            LEFT JOIN identities i ON i.user_id = u.id
        WHERE s.id = ? ORDER BY i.position
        """)

    /// ``withUserMarkingUse`` with the user's identities, one row each.
    package static let withUserAndIdentitiesMarkingUse = SQL(
        """
        \(markingUse)
        SELECT found.*, \(identityColumns)
        FROM found LEFT JOIN identities i ON i.user_id = found.user_id ORDER BY i.position
        """)

    /// A row of ``withUserAndIdentities``: the session, its user, and one identity or none.
    package static func sessionUserAndIdentity<Row: SQLRow>(_ row: Row) throws -> (SessionRecord, UserRecord, IdentityRecord?) {
        let (session, user) = try sessionAndUser(row)
        guard let externalId = try row.optionalText("identity_external_id") else { return (session, user, nil) }
        let identity = IdentityRecord(
            externalId: externalId, providerType: try row.text("identity_provider_type"),
            providerId: try row.text("identity_provider_id"), data: try row.document("identity_data") ?? [:],
            email: try row.optionalText("identity_email"))
        return (session, user, identity)
    }

    /// The session and its user with its identities, of the rows of ``withUserAndIdentities``;
    /// nil when there are none.
    package static func sessionWithIdentities(_ rows: [(SessionRecord, UserRecord, IdentityRecord?)]) -> (SessionRecord, UserRecord)? {
        guard let (session, user, _) = rows.first else { return nil }
        var withIdentities = user
        withIdentities.identities = rows.compactMap(\.2)
        return (session, withIdentities)
    }

    package static func sessionAndUser<Row: SQLRow>(_ row: Row) throws -> (SessionRecord, UserRecord) {
        let session = try session(row)
        return (session, try UsersTable.user(row, id: session.userId, app: session.appId, createdAt: "user_created_at"))
    }

    /// Whose the session is and whether that user is disabled (an access token's check).
    package static let state: SQL = """
        SELECT s.app_id, s.user_id, s.amr, u.disabled FROM sessions s JOIN users u ON u.id = s.user_id AND u.app_id = s.app_id
        WHERE s.id = ?
        """

    package static func state<Row: SQLRow>(_ row: Row) throws -> SessionState {
        SessionState(
            appId: try row.text("app_id"), userId: try row.text("user_id"), userDisabled: try row.bool("disabled"),
            methods: (try row.optionalText("amr") ?? "").split(separator: " ").map(String.init))
    }

    package static let ofUser = SQL("SELECT \(columns) FROM sessions s WHERE s.user_id = ? AND s.app_id = ? ORDER BY s.created_at, s.id")
    package static let delete: SQL = "DELETE FROM sessions WHERE id = ?"
    package static let deleteOfUser: SQL = "DELETE FROM sessions WHERE id = ? AND user_id = ? AND app_id = ? RETURNING 1"
    package static let deleteOfUserBefore: SQL = "DELETE FROM sessions WHERE user_id = ? AND app_id = ? AND created_at < ?"
    package static let deleteOthersOfUser: SQL = "DELETE FROM sessions WHERE user_id = ? AND app_id = ? AND id <> ? RETURNING 1"
    package static let touch: SQL = "UPDATE sessions SET last_used = ? WHERE id = ?"

    /// The sessions of the user of an email/password account but one (arguments: app, the
    /// session kept or "" for none, `local-userpass`, app, email).
    package static let deleteOfAccount: SQL = """
        DELETE FROM sessions WHERE app_id = ? AND id <> ? AND user_id IN
            (SELECT i.user_id FROM identities i JOIN userpass_accounts a
                ON i.app_id = a.app_id AND i.provider_type = ? AND i.external_id = a.identity_id
             WHERE a.app_id = ? AND a.email = ?)
        """

    /// The sessions opened with an API key (arguments: user, `api-key`, key id).
    package static let deleteOfAPIKey: SQL = "DELETE FROM sessions WHERE user_id = ? AND provider_type = ? AND identity_id = ?"
}

// MARK: the records

/// A login session: the server side of a refresh token.
public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var userId: String
    public var deviceId: String
    public var providerType: String
    public var identityId: String
    /// SHA-256 of the refresh token; the token itself is never stored.
    public var refreshDigest: [UInt8]
    public var createdAt: Int64
    /// nil: never expires (anonymous sessions).
    public var expiresAt: Int64?
    /// When a refresh last used it (to within ``SessionService/lastUsedGranularity``); nil: not since its login.
    public var lastUsed: Int64?
    /// How its login proved the person (authsh's `amr`: `pwd`, `otp`, `mfa`, ...), kept for the
    /// APIs whose tokens do not carry it (Firebase's ID tokens); written at the login only.
    public var methods: [String]
    /// Claims its login gave every token of the session (a Firebase custom token's `claims`);
    /// written at the login only.
    public var claims: EJSONDocument?

    /// The memberwise initialiser, for the whole package.
    package init(
        id: String, appId: String, userId: String, deviceId: String, providerType: String, identityId: String, refreshDigest: [UInt8],
        createdAt: Int64, expiresAt: Int64? = nil, lastUsed: Int64? = nil, methods: [String] = [], claims: EJSONDocument? = nil
    ) {
        self.id = id
        self.appId = appId
        self.userId = userId
        self.deviceId = deviceId
        self.providerType = providerType
        self.identityId = identityId
        self.refreshDigest = refreshDigest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsed = lastUsed
        self.methods = methods
        self.claims = claims
    }
}

extension SessionRecord {
    /// What a refresh of this session with a token of `digest` gets at `now`, its user being
    /// `user`: the one rule of a refresh (the digest matches, the session has not expired, the
    /// user is enabled). ``SessionService`` answers by it, ``SQLStore`` marks the session used
    /// by it, and PostgreSQL's one-statement refresh (`SessionsTable.withUserMarkingUse`)
    /// writes it in SQL, held to it on both engines by the store's conformance tests.
    public func refresh(digest: [UInt8], now: Int64, user: UserRecord) -> RefreshVerdict {
        guard Secrets.constantTimeEqual(refreshDigest, digest) else { return .otherToken }
        if let expiresAt, expiresAt <= now { return .expired }
        return user.disabled ? .userDisabled : .answered
    }
}

/// What a refresh gets (``SessionRecord/refresh(digest:now:user:)``).
public enum RefreshVerdict: Sendable {
    case answered
    /// The token is not this session's (an older one, or a forged one).
    case otherToken
    case expired
    case userDisabled
}

/// A session's owner and whether that user is disabled (``AuthStore/sessionState(id:)``).
public struct SessionState: Sendable, Equatable {
    public var appId: String
    public var userId: String
    public var userDisabled: Bool
    /// How the session's login proved the person (``SessionRecord/methods``).
    public var methods: [String]

    /// The memberwise initialiser, for the whole package.
    package init(appId: String, userId: String, userDisabled: Bool, methods: [String] = []) {
        self.appId = appId
        self.userId = userId
        self.userDisabled = userDisabled
        self.methods = methods
    }
}
