// SPDX-License-Identifier: Apache-2.0
import AuthStorage
/// Writes audit events: what exists only when the audit log is on (`auditLog`), so that a
/// server without it writes nothing.
///
/// A request answers after its events are stored (or their write failed), so a crash loses
/// none that a client saw answered. Under load the writes share commits through the store's
/// group commit (``SQLEngine/append(_:_:_:)``), not a queue of their own: on SQLite an event's
/// write joins the transaction of the logins and other writes of that moment; on PostgreSQL the
/// events of the moment go in one transaction (``PostgresStatementBatches``).
struct AuditWriter: Sendable {
    let store: any AuditStore

    /// Stores `events`.
    /// - Throws: the store's error for the write that held them.
    func write(_ events: [AuditEvent]) async throws {
        try await store.insertAuditEvents(events)
    }
}
