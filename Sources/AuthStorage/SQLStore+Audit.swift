// SPDX-License-Identifier: Apache-2.0
/// The audit log.
extension SQLStore {
    public func insertAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        // A request's one event (most have one) shares its commit with the writes of the moment.
        if events.count == 1 {
            return try await engine.append("write audit log", AuditEventsTable.insert, AuditEventsTable.insertArguments(events[0]))
        }
        try await engine.write("write audit log") { r in
            for event in events { try await r.run(AuditEventsTable.insert, AuditEventsTable.insertArguments(event)) }
        }
    }

    public func auditEvents(_ filter: AuditFilter) async throws -> [AuditEvent] {
        try await engine.read("read audit log") { r in
            if let after = filter.after {
                return try await r.all(
                    AuditEventsTable.selectAfter, AuditEventsTable.selectAfterArguments(filter, after: after),
                    AuditEventsTable.event)
            }
            return try await r.all(AuditEventsTable.select, AuditEventsTable.selectArguments(filter), AuditEventsTable.event)
        }
    }

    public func deleteAuditEvents(before time: Int64) async throws -> Int {
        let batch = 10_000
        var deleted = 0
        while true {
            let n = try await engine.write("forget audit events") { r in
                try await r.count(AuditEventsTable.deleteOld, [.integer(time), .integer(Int64(batch))])
            }
            deleted += n
            if n < batch { return deleted }
        }
    }
}
