// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Why a store operation failed, in terms the routes can answer.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: Sendable { case conflict, unavailable }
    package let code: Code
    /// What was being done (never a bound value: no password, token or key).
    public let operation: String

    /// A unique key already exists (email, identity, API key name).
    public static func conflict(_ operation: String) -> StoreError { .init(code: .conflict, operation: operation) }
    /// The database failed (disk, corruption, lock timeout).
    public static func unavailable(_ operation: String) -> StoreError { .init(code: .unavailable, operation: operation) }

    public var isConflict: Bool { code == .conflict }
    public var description: String { code == .conflict ? "conflict: \(operation)" : "database error: \(operation)" }

    /// The memberwise initialiser, for the whole package.
    package init(code: Code, operation: String) {
        self.code = code
        self.operation = operation
    }
}

/// Everything the server keeps: every area's protocol (`Storage/Areas/`), and what concerns
/// the whole database. One conformer per engine family (``SQLStore`` over SQLite or
/// PostgreSQL); a service holds only the areas it uses (`any SessionStore & UserStore`), so
/// its declaration says what it touches.
public protocol AuthStore: SigningKeyStore, UserStore, PendingCredentialStore, UserpassStore, SessionStore, APIKeyStore, PluginValueStore,
    SignInStore, SecondFactorStore, PasskeyStore, BackoffStore, RateLimitStore, MailQueueStore, TriggerRunStore, AuditStore, AdminStore, TransferStore
{
    /// Lets the database's connections go (a PostgreSQL pool's); the store answers nothing
    /// afterwards. A command that reads and exits calls it; a server's store lives as long as
    /// the process.
    func close()

    /// Answers when the database does (`/readyz`).
    func ping() async throws

    // Dev mode
    /// Deletes every user, identity, account, token, session and API key of the app.
    func wipe(app: String) async throws
}
