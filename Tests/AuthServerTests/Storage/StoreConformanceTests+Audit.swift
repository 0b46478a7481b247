// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// Reading the audit log, on every engine: newest first with filters and pages, and oldest
/// first above an id (what `authsh audit --follow` reads).
extension StoreConformanceTests {
    static func auditEvent(_ time: Int64, _ event: String, app: String = "app", user: String? = nil) -> AuditEvent {
        AuditEvent(
            time: time, appId: app, event: event, outcome: "success", userId: user, provider: nil, address: nil,
            userAgent: nil, detail: nil, actor: nil)
    }

    @Test(arguments: Engine.allCases)
    func auditEventsAreReadNewestFirstOrAfterAnId(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertAuditEvents([
                Self.auditEvent(10, "login", user: "u1"), Self.auditEvent(20, "register", user: "u2"),
                Self.auditEvent(30, "login", app: "other", user: "u3"), Self.auditEvent(40, "login", user: "u2"),
            ])
            let all = try await store.auditEvents(AuditFilter())
            #expect(all.map(\.time) == [40, 30, 20, 10])
            let ids = all.map(\.id)
            #expect(try await store.auditEvents(AuditFilter(appId: "app", event: "login")).map(\.time) == [40, 10])
            #expect(try await store.auditEvents(AuditFilter(since: 20, limit: 2)).map(\.time) == [40, 30])
            #expect(try await store.auditEvents(AuditFilter(before: ids[1])).map(\.time) == [20, 10])

            // Above an id: oldest first, with the same filters and limit.
            #expect(try await store.auditEvents(AuditFilter(after: ids[3])).map(\.time) == [20, 30, 40])
            #expect(try await store.auditEvents(AuditFilter(after: ids[3], limit: 2)).map(\.time) == [20, 30])
            #expect(try await store.auditEvents(AuditFilter(userId: "u2", after: ids[3])).map(\.time) == [20, 40])
            #expect(try await store.auditEvents(AuditFilter(appId: "app", since: 25, after: 0)).map(\.time) == [40])
            #expect(try await store.auditEvents(AuditFilter(after: ids[0])).isEmpty)

            // Retention: what is older goes, what is not stays.
            #expect(try await store.deleteAuditEvents(before: 25) == 2)
            #expect(try await store.auditEvents(AuditFilter()).map(\.time) == [40, 30])
            #expect(try await store.deleteAuditEvents(before: 25) == 0)
        }
    }
}
