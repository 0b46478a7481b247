// SPDX-License-Identifier: Apache-2.0
/// `mail_queue`: mail waiting for delivery, and a week of delivered or failed ones.
package enum MailQueueTable {
    package static let insert: SQL = """
        INSERT INTO mail_queue (id, app_id, kind, recipient, content, message_id, created_at, next_attempt, attempts, state,
                                last_error, lease_until)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
        """

    package static func insertArguments(_ m: QueuedMail) -> [SQLValue] {
        [
            .text(m.id), .text(m.appId), .text(m.kind), .text(m.recipient), .text(m.content), .text(m.messageId),
            .integer(m.createdAt), .integer(m.nextAttempt), .integer(m.attempts), .text(m.state.rawValue), .text(m.lastError),
        ]
    }

    private static let columns = "id, app_id, kind, recipient, content, message_id, created_at, next_attempt, attempts, state, last_error"

    package static func mail<Row: SQLRow>(_ row: Row) throws -> QueuedMail {
        guard let state = QueuedMail.State(rawValue: try row.text("state")) else { throw SQLRowError(column: "state") }
        return QueuedMail(
            id: try row.text("id"), appId: try row.text("app_id"), kind: try row.text("kind"),
            recipient: try row.text("recipient"), content: try row.text("content"), messageId: try row.text("message_id"),
            createdAt: try row.int64("created_at"), nextAttempt: try row.int64("next_attempt"),
            attempts: Int(try row.int64("attempts")), state: state, lastError: try row.optionalText("last_error"))
    }

    /// Leasing, finishing and retrying, as every queue does; a finished mail's content goes.
    package static let queue = QueueStatements("mail", table: "mail_queue", columns: columns, finishing: ", content = ''")
    package static let select = SQL("SELECT \(columns) FROM mail_queue WHERE id = ?")
    package static let queuedCount: SQL = "SELECT COUNT(*) AS queued FROM mail_queue WHERE state = 'queued'"
}

// MARK: the record

/// A mail in the delivery queue (``MailQueue``). Written before the request that sends it
/// answers (with the token it carries, in one transaction), and kept until delivered or given
/// up; then its content, which may hold a token, is erased and the record kept a week.
public struct QueuedMail: Sendable, Equatable {
    public enum State: String, Sendable { case queued, sent, failed }
    public var id: String
    public var appId: String
    /// `confirm`, `reset`, `notice` or `plugin`.
    public var kind: String
    public var recipient: String
    /// The message's fields as JSON (``OutboxMessage``); empty once delivered or given up.
    public var content: String
    /// `<...@domain>`: the same on every attempt.
    public var messageId: String
    public var createdAt: Int64
    public var nextAttempt: Int64
    public var attempts: Int = 0
    public var state: State = .queued
    /// Why the last attempt failed (a server's reply or a connection error; never content).
    public var lastError: String?

    /// The memberwise initialiser, for the whole package.
    package init(
        id: String, appId: String, kind: String, recipient: String, content: String, messageId: String, createdAt: Int64, nextAttempt: Int64,
        attempts: Int = 0, state: State = .queued, lastError: String? = nil
    ) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.recipient = recipient
        self.content = content
        self.messageId = messageId
        self.createdAt = createdAt
        self.nextAttempt = nextAttempt
        self.attempts = attempts
        self.state = state
        self.lastError = lastError
    }
}

extension QueuedMail: QueueRecord {
    package init<Row: SQLRow>(row: Row) throws { self = try MailQueueTable.mail(row) }
}
