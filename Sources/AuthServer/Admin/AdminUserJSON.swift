// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// How the admin API shows a user. Never a secret: no password hash, no refresh token or its
/// digest, no API key (only names).
extension AdminService {
    /// The user as a listing shows it.
    static func adminUser(_ r: AdminUserRecord) -> EJSON {
        let u = r.user
        return [
            "id": .string(u.id), "app": .string(u.appId), "type": .string(u.type), "disabled": .bool(u.disabled),
            "createdAt": .int64(u.createdAt), "lastLoginAt": r.lastLoginAt.map(EJSON.int64) ?? .null,
            "data": .document(u.data), "customData": u.customData.map(EJSON.document) ?? .null,
            "identities": .array(
                u.identities.map { i in
                    [
                        "providerType": .string(i.providerType), "providerId": .string(i.providerId), "externalId": .string(i.externalId),
                        "email": i.email.map(EJSON.string) ?? .null, "data": .document(i.data),
                    ]
                }),
        ]
    }

    /// The user as its page shows it: plus sessions, API key names and its latest audit events.
    func adminDetails(_ current: AdminUserRecord, app: AppRuntime) async throws -> EJSON {
        guard case .document(var doc) = Self.adminUser(current) else { return Self.adminUser(current) }
        let sessions = try await store.sessions(userId: current.user.id, app: app.id)
        doc["sessions"] = .array(
            sessions.map { s in
                [
                    "id": .string(s.id), "providerType": .string(s.providerType), "deviceId": .string(s.deviceId),
                    "createdAt": .int64(s.createdAt), "lastUsed": s.lastUsed.map(EJSON.int64) ?? .null,
                    "expiresAt": s.expiresAt.map(EJSON.int64) ?? .null,
                ]
            })
        let keys = try await store.apiKeys(userId: current.user.id)
        doc["apiKeys"] = .array(keys.map { ["id": .string($0.id), "name": .string($0.name), "disabled": .bool($0.disabled)] })
        let events = try await store.auditEvents(AuditFilter(appId: app.id, userId: current.user.id, limit: 50))
        doc["audit"] = .array(events.map(Self.adminAuditEvent))
        return .document(doc)
    }

    static func adminAuditEvent(_ e: AuditEvent) -> EJSON {
        [
            "id": .int64(e.id), "time": .int64(e.time), "app": .string(e.appId), "event": .string(e.event),
            "outcome": .string(e.outcome), "userId": e.userId.map(EJSON.string) ?? .null,
            "provider": e.provider.map(EJSON.string) ?? .null, "address": e.address.map(EJSON.string) ?? .null,
            "userAgent": e.userAgent.map(EJSON.string) ?? .null, "detail": e.detail.map(EJSON.string) ?? .null,
            "actor": e.actor.map(EJSON.string) ?? .null,
        ]
    }
}
