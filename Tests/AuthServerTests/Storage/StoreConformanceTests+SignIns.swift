// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// The store's shared sign-ins and failed-password counts, on every engine.
extension StoreConformanceTests {
    @Test(arguments: Engine.allCases)
    func signInsAreTakenOnce(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            func signIn(_ id: String, app: String = "app", kind: SealedSignIn.Kind = .flow, expires: Int64 = 100) -> SealedSignIn {
                SealedSignIn(id: id, appId: app, kind: kind, sealed: Array("box-\(id)".utf8), expiresAt: expires)
            }
            try await store.insertSignIn(signIn("s1"))
            try await store.insertSignIn(signIn("s2", expires: 50))
            try await store.insertSignIn(signIn("c1", kind: .code))
            try await store.insertSignIn(signIn("o1", app: "other"))
            #expect(await Self.isConflict { try await store.insertSignIn(signIn("s1")) })

            #expect(try await store.takeSignIn(id: "s1", kind: .code) == nil, "a flow is not a code")
            #expect(try await store.takeSignIn(id: "s1", kind: .flow) == signIn("s1"))
            #expect(try await store.takeSignIn(id: "s1", kind: .flow) == nil, "taken once")

            #expect(try await store.deleteExpiredSignIns(at: 50) == 1)
            #expect(try await store.takeSignIn(id: "s2", kind: .flow) == nil)
            #expect(try await store.takeSignIn(id: "c1", kind: .code) == signIn("c1", kind: .code))

            try await store.wipe(app: "other")
            #expect(try await store.takeSignIn(id: "o1", kind: .flow) == nil, "a wipe takes the app's sign-ins")
        }
    }

    /// Many takes of one sign-in at once: exactly one gets it.
    @Test(arguments: Engine.allCases)
    func racingTakesOfOneSignInLeaveOneWinner(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            for round in 0..<5 {
                let id = "race-\(round)"
                try await store.insertSignIn(SealedSignIn(id: id, appId: "app", kind: .code, sealed: [1], expiresAt: 100))
                let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<8 { group.addTask { try await store.takeSignIn(id: id, kind: .code) != nil } }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(winners == 1, "round \(round)")
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func loginFailuresCountWaitAndAreForgotten(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            #expect(try await store.loginFailures(key: "k") == nil)
            for time in [Int64(10), 11, 12] {
                try await store.countLoginFailure(key: "k", at: time, memory: 100) { $0 >= 3 ? 500 : nil }
            }
            #expect(try await store.loginFailures(key: "k") == LoginFailures(key: "k", failures: 3, waitUntil: 500, lastFailure: 12))
            // A failure `memory` seconds after the last starts the count again, without its wait.
            try await store.countLoginFailure(key: "k", at: 112, memory: 100) { _ in nil }
            #expect(try await store.loginFailures(key: "k") == LoginFailures(key: "k", failures: 1, waitUntil: 0, lastFailure: 112))

            // Counted once per failure when instances fail at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { try await store.countLoginFailure(key: "many", at: 5, memory: 100) { _ in nil } } }
                try await group.waitForAll()
            }
            #expect(try await store.loginFailures(key: "many")?.failures == 20)

            try await store.deleteLoginFailures(key: "k")
            #expect(try await store.loginFailures(key: "k") == nil)
            #expect(try await store.deleteLoginFailures(lastBefore: 5) == 0)
            #expect(try await store.deleteLoginFailures(lastBefore: 6) == 1)
            #expect(try await store.loginFailures(key: "many") == nil)
        }
    }
}
