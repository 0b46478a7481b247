// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// Passkeys on every engine: the per-user limit, one credential id per app, the counter rule,
/// and what goes with a passkey or its user.
extension StoreConformanceTests {
    static func passkey(_ id: String, user: String = "u1", app: String = "app", count: Int64 = 0) -> PasskeyRecord {
        PasskeyRecord(
            appId: app, id: id, userId: user, name: "n-\(id)", publicKey: [1, 2, 3], algorithm: -7, signCount: count,
            aaguid: Array(repeating: 0, count: 16), transports: ["internal", "hybrid"], backupEligible: true, createdAt: 5,
            lastUsedAt: nil)
    }

    @Test(arguments: Engine.allCases)
    func passkeysKeepTheirCounterAndGoWithTheirUser(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("u1", Self.identity("i1")))
            try await store.insertUser(Self.user("u2", Self.identity("i2")))
            #expect(try await store.insertPasskey(Self.passkey("k1"), limit: 2))
            #expect(try await store.insertPasskey(Self.passkey("k2", count: 7), limit: 2))
            #expect(try await !store.insertPasskey(Self.passkey("k3"), limit: 2), "the limit holds")
            #expect(await Self.isConflict { _ = try await store.insertPasskey(Self.passkey("k1", user: "u2"), limit: 2) })
            #expect(try await store.insertPasskey(Self.passkey("k1", user: "u2", app: "other"), limit: 2), "ids are per app")
            #expect(try await store.passkeys(userId: "u1").map(\.id) == ["k1", "k2"])
            #expect(try await store.passkey(app: "app", id: "k1") == Self.passkey("k1"))

            // A counter of 0 stays acceptable while both are 0; one that does not grow is refused.
            #expect(try await store.usePasskey(app: "app", id: "k1", signCount: 0, at: 10))
            #expect(try await store.usePasskey(app: "app", id: "k1", signCount: 0, at: 11))
            #expect(try await store.usePasskey(app: "app", id: "k2", signCount: 8, at: 12))
            #expect(try await !store.usePasskey(app: "app", id: "k2", signCount: 8, at: 13), "the same counter again")
            #expect(try await !store.usePasskey(app: "app", id: "k2", signCount: 3, at: 14), "a counter that went back")
            #expect(try await !store.usePasskey(app: "app", id: "k2", signCount: 0, at: 15), "0 after a counter")
            let used = try #require(try await store.passkey(app: "app", id: "k2"))
            #expect(used.signCount == 8 && used.lastUsedAt == 12)

            #expect(try await store.renamePasskey(app: "app", id: "k1", userId: "u1", name: "phone"))
            #expect(try await !store.renamePasskey(app: "app", id: "k1", userId: "u2", name: "x"), "another user's")
            #expect(try await store.passkey(app: "app", id: "k1")?.name == "phone")

            // Removing one ends the sessions it opened, and only those.
            try await store.insertSession(Self.session("s1", user: "u1", type: "passkey", identity: "k1"))
            try await store.insertSession(Self.session("s2", user: "u1", type: "passkey", identity: "k2"))
            try await store.insertSession(Self.session("s3", user: "u1"))
            #expect(try await !store.deletePasskey(app: "app", id: "k1", userId: "u2"))
            #expect(try await store.deletePasskey(app: "app", id: "k1", userId: "u1"))
            #expect(try await store.sessions(userId: "u1", app: "app").map(\.id).sorted() == ["s2", "s3"])

            try await store.deleteUser(id: "u1", app: "app")
            #expect(try await store.passkey(app: "app", id: "k2") == nil, "a user's passkeys go with them")
            #expect(try await store.passkey(app: "other", id: "k1") != nil)
        }
    }
}
