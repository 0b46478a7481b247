// SPDX-License-Identifier: Apache-2.0
/// `login_failures`: failed-password counts (``LoginBackoff``), by digest of what is counted.
package enum LoginFailuresTable {
    package static let select: SQL = "SELECT key, failures, wait_until, last_failure FROM login_failures WHERE key = ?"

    package static func failures<Row: SQLRow>(_ row: Row) throws -> LoginFailures {
        LoginFailures(
            key: try row.text("key"), failures: Int(try row.int64("failures")), waitUntil: try row.int64("wait_until"),
            lastFailure: try row.int64("last_failure"))
    }

    /// Counts one failure at a time (arguments: key, time, how long failures are remembered):
    /// a count whose last failure is older than that starts again at one, without its wait.
    package static let count: SQL = """
        INSERT INTO login_failures (key, failures, wait_until, last_failure) VALUES (?, 1, 0, ?)
        ON CONFLICT (key) DO UPDATE SET
            failures = CASE WHEN excluded.last_failure - login_failures.last_failure >= ? THEN 1 ELSE login_failures.failures + 1 END,
            wait_until = CASE WHEN excluded.last_failure - login_failures.last_failure >= ? THEN 0 ELSE login_failures.wait_until END,
            last_failure = excluded.last_failure
        RETURNING failures
        """
    package static let setWait: SQL = "UPDATE login_failures SET wait_until = ? WHERE key = ?"
    package static let delete: SQL = "DELETE FROM login_failures WHERE key = ?"
    package static let deleteOld: SQL = "DELETE FROM login_failures WHERE last_failure < ? RETURNING 1"
}

// MARK: the record

/// Failed passwords counted under one key (``LoginBackoff``).
public struct LoginFailures: Sendable, Equatable {
    /// Hex SHA-256 of what is counted (an address and account, or an account).
    public var key: String
    public var failures: Int
    /// Until when the key must wait (0: it need not).
    public var waitUntil: Int64
    public var lastFailure: Int64

    /// The memberwise initialiser, for the whole package.
    package init(key: String, failures: Int, waitUntil: Int64, lastFailure: Int64) {
        self.key = key
        self.failures = failures
        self.waitUntil = waitUntil
        self.lastFailure = lastFailure
    }
}
