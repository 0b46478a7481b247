// SPDX-License-Identifier: Apache-2.0
/// `trigger_runs`: authentication triggers' events waiting to run, and a week of finished ones.
package enum TriggerRunsTable {
    package static let insert: SQL = """
        INSERT INTO trigger_runs (id, app_id, trigger_name, function_name, operation, event, created_at, next_attempt,
                                  attempts, state, last_error, lease_until)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 'queued', NULL, 0)
        """

    package static func insertArguments(_ r: TriggerRun) -> [SQLValue] {
        [
            .text(r.id), .text(r.appId), .text(r.trigger), .text(r.function), .text(r.operation), .text(r.event),
            .integer(r.createdAt), .integer(r.createdAt),
        ]
    }

    private static let columns =
        "id, app_id, trigger_name, function_name, operation, event, created_at, attempts, state, last_error, finished_at"

    package static func run<Row: SQLRow>(_ row: Row) throws -> TriggerRun {
        guard let state = TriggerRun.State(rawValue: try row.text("state")) else { throw SQLRowError(column: "state") }
        return TriggerRun(
            id: try row.text("id"), appId: try row.text("app_id"), trigger: try row.text("trigger_name"),
            function: try row.text("function_name"), operation: try row.text("operation"), event: try row.text("event"),
            createdAt: try row.int64("created_at"), attempts: Int(try row.int64("attempts")), state: state,
            lastError: try row.optionalText("last_error"), finishedAt: try row.optionalInt64("finished_at"))
    }

    package static let queue = QueueStatements("trigger run", table: "trigger_runs", columns: columns)
    /// An app's runs, newest first (to the second: runs of one second come in no set order;
    /// arguments: app, limit).
    package static let recent = SQL("SELECT \(columns) FROM trigger_runs WHERE app_id = ? ORDER BY created_at DESC, id DESC LIMIT ?")
    /// An app's runs in one state, newest first (arguments: app, state, limit).
    package static let recentInState = SQL(
        "SELECT \(columns) FROM trigger_runs WHERE app_id = ? AND state = ? ORDER BY created_at DESC, id DESC LIMIT ?")
    package static let queuedCount: SQL = "SELECT COUNT(*) AS queued FROM trigger_runs WHERE app_id = ? AND state = 'queued'"
}

// MARK: the record

/// One run of an authentication trigger (``TriggerConfiguration``): its event, written in the
/// transaction of the change that caused it, and what became of it.
public struct TriggerRun: Sendable, Equatable {
    public enum State: String, Sendable { case queued, done, failed }
    public var id: String
    public var appId: String
    /// The trigger's name.
    public var trigger: String
    /// The plugin function it runs.
    public var function: String
    /// `CREATE`, `LOGIN` or `DELETE`.
    public var operation: String
    /// App Services' `authEvent` as canonical EJSON: `{operationType, providers, user, time}`.
    public var event: String
    public var createdAt: Int64
    public var attempts: Int = 0
    public var state: State = .queued
    /// Why the last attempt failed (the function's error), or why the run was given up.
    public var lastError: String?
    public var finishedAt: Int64?

    public init(id: String, appId: String, trigger: String, function: String, operation: String, event: String, createdAt: Int64) {
        self.id = id
        self.appId = appId
        self.trigger = trigger
        self.function = function
        self.operation = operation
        self.event = event
        self.createdAt = createdAt
    }

    package init(
        id: String, appId: String, trigger: String, function: String, operation: String, event: String, createdAt: Int64,
        attempts: Int, state: State, lastError: String?, finishedAt: Int64?
    ) {
        self.init(id: id, appId: appId, trigger: trigger, function: function, operation: operation, event: event, createdAt: createdAt)
        self.attempts = attempts
        self.state = state
        self.lastError = lastError
        self.finishedAt = finishedAt
    }
}

extension TriggerRun: QueueRecord {
    package init<Row: SQLRow>(row: Row) throws { self = try TriggerRunsTable.run(row) }
}
