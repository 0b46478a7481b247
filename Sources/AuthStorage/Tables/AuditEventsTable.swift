// SPDX-License-Identifier: Apache-2.0
/// `audit_events`: the audit log, newest last (`id` increases).
package enum AuditEventsTable {
    package static let insert: SQL = """
        INSERT INTO audit_events (time, app_id, event, outcome, user_id, provider, address, user_agent, detail, actor)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    package static func insertArguments(_ e: AuditEvent) -> [SQLValue] {
        [
            .integer(e.time), .text(e.appId), .text(e.event), .text(e.outcome), .text(e.userId), .text(e.provider),
            .text(e.address), .text(e.userAgent), .text(e.detail), .text(e.actor),
        ]
    }

    /// The columns and the filters both reads share (a NULL filter matches all; arguments:
    /// app, user, event and since, each twice: ``filterArguments(_:)``).
    private static let filtered = """
        SELECT id, time, app_id, event, outcome, user_id, provider, address, user_agent, detail, actor FROM audit_events
        WHERE (CAST(? AS TEXT) IS NULL OR app_id = ?) AND (CAST(? AS TEXT) IS NULL OR user_id = ?)
            AND (CAST(? AS TEXT) IS NULL OR event = ?) AND (CAST(? AS BIGINT) IS NULL OR time >= ?)
        """

    private static func filterArguments(_ f: AuditFilter) -> [SQLValue] {
        [
            .text(f.appId), .text(f.appId), .text(f.userId), .text(f.userId), .text(f.event), .text(f.event),
            .integer(f.since), .integer(f.since),
        ]
    }

    /// Newest first, filtered, below an id when `before` is set (arguments: the filters,
    /// before twice, limit).
    package static let select = SQL(filtered + "\n    AND (CAST(? AS BIGINT) IS NULL OR id < ?)\nORDER BY id DESC LIMIT ?")

    package static func selectArguments(_ f: AuditFilter) -> [SQLValue] {
        filterArguments(f) + [.integer(f.before), .integer(f.before), .integer(f.limit)]
    }

    /// Oldest first, filtered, above an id (arguments: the filters, after, limit).
    package static let selectAfter = SQL(filtered + "\n    AND id > ?\nORDER BY id LIMIT ?")

    package static func selectAfterArguments(_ f: AuditFilter, after: Int64) -> [SQLValue] {
        filterArguments(f) + [.integer(after), .integer(f.limit)]
    }

    package static func event<Row: SQLRow>(_ row: Row) throws -> AuditEvent {
        var e = AuditEvent(
            time: try row.int64("time"), appId: try row.text("app_id"), event: try row.text("event"),
            outcome: try row.text("outcome"), userId: try row.optionalText("user_id"), provider: try row.optionalText("provider"),
            address: try row.optionalText("address"), userAgent: try row.optionalText("user_agent"),
            detail: try row.optionalText("detail"), actor: try row.optionalText("actor"))
        e.id = try row.int64("id")
        return e
    }

    /// Up to a batch of events before a time, oldest first (arguments: time, batch size): a
    /// backlog is deleted in short transactions that never hold the writer for long.
    package static let deleteOld: SQL = """
        DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE time < ? ORDER BY id LIMIT ?) RETURNING 1
        """
}

// MARK: the record

/// One entry of the audit log: an auth event, who and where from, and how it ended. Never a
/// secret: no password, token or key is ever one of its fields.
public struct AuditEvent: Sendable, Equatable {
    /// A `User-Agent` header as the log keeps it: its first 256 bytes (by bytes: one
    /// character can carry thousands of bytes of combining marks).
    public static func userAgent(_ header: String?) -> String? {
        header.map { String(decoding: $0.utf8.prefix(256), as: UTF8.self) }
    }

    /// Assigned by the store, increasing (0 for an event not stored yet).
    public var id: Int64 = 0
    /// Unix seconds.
    public var time: Int64
    public var appId: String
    /// `login`, `password_failed`, `lockout`, `register`, `confirm`, `reset_requested`,
    /// `reset_done`, `password_changed`, `link`, `unlink`, `api_key_created`,
    /// `api_key_enabled`, `api_key_disabled`, `api_key_deleted`, `session_revoked`, `logout`,
    /// `user_deleted`, `plugin_killed`, `rate_limited`.
    public var event: String
    /// `success` or `failure`.
    public var outcome: String
    public var userId: String?
    public var provider: String?
    public var address: String?
    public var userAgent: String?
    /// The error code of a failure, a plugin's name, what was killed: words the server chose.
    public var detail: String?
    /// Who acted when it was not the user: `admin:NAME` for an admin key's action.
    public var actor: String?

    public init(
        time: Int64, appId: String, event: String, outcome: String, userId: String? = nil, provider: String? = nil,
        address: String? = nil, userAgent: String? = nil, detail: String? = nil, actor: String? = nil
    ) {
        self.actor = actor
        self.time = time
        self.appId = appId
        self.event = event
        self.outcome = outcome
        self.userId = userId
        self.provider = provider
        self.address = address
        self.userAgent = userAgent
        self.detail = detail
    }
}
