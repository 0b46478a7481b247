// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// What administration reads and changes, on every engine: listings and their filters, pages,
/// last logins, disabling.
extension StoreConformanceTests {
    @Test(arguments: Engine.allCases)
    func usersAreListedFilteredAndPaged(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("u1", createdAt: 10, Self.identity("a1")))
            try await store.insertUser(Self.user("u2", createdAt: 20, Self.identity("g2", "oauth2-google", email: "gina@example.com")))
            try await store.insertUser(Self.user("u3", createdAt: 30, Self.identity("e3", "local-userpass")))
            try await store.insertUserpassAccount(
                UserpassAccount(
                    appId: "app", email: "Eve_1@Example.com", passwordHash: "h",
                    identityId: "e3", confirmed: true, createdAt: 30))
            try await store.insertUser(Self.user("o1", app: "other", createdAt: 10, Self.identity("a9")))
            try await store.insertSession(Self.session("s1", user: "u2", createdAt: 25))

            func ids(_ change: (inout UserQuery) -> Void = { _ in }) async throws -> [String] {
                var q = UserQuery()
                change(&q)
                return try await store.listUsers(app: "app", query: q).map(\.user.id)
            }
            #expect(try await ids() == ["u1", "u2", "u3"])
            #expect(try await ids { $0.limit = 2 } == ["u1", "u2"])
            #expect(try await ids { $0.after = "u2" } == ["u3"])
            #expect(try await ids { $0.provider = "oauth2-google" } == ["u2"])
            #expect(try await ids { $0.emailPrefix = "gina@" } == ["u2"])
            #expect(try await ids { $0.emailPrefix = "eve_1" } == ["u3"], "an account's email, any case")
            #expect(try await ids { $0.emailPrefix = "eve%" } == [], "% is itself")
            #expect(try await ids { $0.emailPrefix = "eve_" } == ["u3"], "_ is itself")
            #expect(try await ids { $0.emailPrefix = "evex" } == [])
            #expect(
                try await ids {
                    $0.createdAfter = 20; $0.createdBefore = 30
                } == ["u2"])
            #expect(try await ids { $0.lastLoginAfter = 25 } == ["u2"])
            #expect(try await ids { $0.lastLoginBefore = 25 } == [], "never logged in is not before")

            let u2 = try #require(try await store.adminUser(id: "u2", app: "app"))
            #expect(u2.lastLoginAt == 25 && u2.user.identities.count == 1)
            #expect(try await store.adminUser(id: "u2", app: "other") == nil)

            #expect(try await store.setUserDisabled(true, id: "u1", app: "app"))
            #expect(try await store.setUserDisabled(true, id: "u1", app: "other") == false)
            #expect(try await ids { $0.disabled = true } == ["u1"])
            #expect(try await ids { $0.disabled = false } == ["u2", "u3"])
            #expect(try await store.user(id: "u1", app: "app")?.disabled == true)
            #expect(try await store.setUserDisabled(false, id: "u1", app: "app"))
            #expect(try await ids { $0.disabled = true } == [])
        }
    }
}
