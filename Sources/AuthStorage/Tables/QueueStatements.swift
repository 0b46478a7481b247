// SPDX-License-Identifier: Apache-2.0
/// The statements of a durable work queue's table (`mail_queue`, `trigger_runs`): rows with
/// `id`, `state` (`queued` until done or given up), `next_attempt`, `attempts`, `last_error`,
/// `lease_until` and `finished_at`, worked by ``QueueWorker`` on every instance that shares the
/// database, each row leased by one at a time.
package struct QueueStatements: Sendable {
    /// What one row is, in operation names ("lease mail"): `mail`, `trigger run`.
    package let name: String
    /// Queued rows due at a time and leased by no one (arguments: now, now, limit); on
    /// PostgreSQL rows another instance is leasing are passed over, so instances take different ones.
    package let due: SQL
    /// Leases one for an attempt, unless someone else did meanwhile (arguments: lease end, id,
    /// now); returns the row's `columns`.
    package let lease: SQL
    /// Done or given up (arguments: state, error, time, id, the lease's attempt: a lease another
    /// worker took since changes nothing).
    package let finish: SQL
    /// Another attempt later (arguments: next attempt, error, id, the lease's attempt).
    package let retry: SQL
    /// Deletes the rows finished before a time (argument: time).
    package let deleteFinished: SQL

    /// `columns` are what ``lease`` returns; `finishing` is set on finish besides the state
    /// (`content = ''` for mail, whose content may hold a token).
    package init(_ name: String, table: String, columns: String, finishing: String = "") {
        self.name = name
        due = SQL(
            "SELECT id FROM \(table) WHERE state = 'queued' AND next_attempt <= ? AND lease_until <= ? ORDER BY next_attempt LIMIT ?",
            lock: .skipLocked)
        lease = SQL(
            """
            UPDATE \(table) SET lease_until = ?, attempts = attempts + 1
            WHERE id = ? AND state = 'queued' AND lease_until <= ? RETURNING \(columns)
            """)
        finish = SQL(
            """
            UPDATE \(table) SET state = ?, last_error = ?, finished_at = ?, lease_until = 0\(finishing)
            WHERE id = ? AND attempts = ? AND state = 'queued' RETURNING 1
            """)
        retry = SQL(
            """
            UPDATE \(table) SET next_attempt = ?, last_error = ?, lease_until = 0
            WHERE id = ? AND attempts = ? AND state = 'queued' RETURNING 1
            """)
        deleteFinished = SQL("DELETE FROM \(table) WHERE state <> 'queued' AND finished_at < ? RETURNING 1")
    }
}
