// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The audit log. One area of ``AuthStore``.
public protocol AuditStore: Sendable {
    func insertAuditEvents(_ events: [AuditEvent]) async throws
    /// Newest first; oldest first with `after` (``AuditFilter/after``).
    func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent]
    /// Deletes the events before `time`; returns how many.
    func deleteAuditEvents(before time: Int64) async throws -> Int
}
