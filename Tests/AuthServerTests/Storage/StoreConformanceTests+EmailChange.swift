// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Testing

/// An email/password account moved to another email, on every engine.
extension StoreConformanceTests {
    @Test(arguments: Engine.allCases)
    func anEmailChangeMovesTheAccountItsIdentityAndProfileAndEndsOtherSessions(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUserpassAccount(
                UserpassAccount(
                    appId: "app", email: "old@example.com", passwordHash: "h", identityId: "u1", confirmed: true, createdAt: 1,
                    emailVerified: true))
            let identity = IdentityRecord(
                externalId: "u1", providerType: ProviderType.userpass, providerId: "p", data: ["email": "old@example.com"],
                email: "old@example.com")
            var ann = Self.user("ann", identity)
            ann.data["email"] = "old@example.com"
            try await store.insertUser(ann)
            try await store.insertSession(Self.session("keep", user: "ann"))
            try await store.insertSession(Self.session("other", user: "ann"))
            try await store.insertToken(
                OneTimeToken(id: "t1", appId: "app", kind: .reset, email: "old@example.com", digest: [1], expiresAt: 100), now: 1, keep: 3)
            // Another user's account, and another user's identity vouching for an email.
            try await store.insertUserpassAccount(
                UserpassAccount(appId: "app", email: "Bob@example.com", passwordHash: "h", identityId: "b1", confirmed: true, createdAt: 1))
            try await store.insertUser(Self.user("cy", Self.identity("c1", "oauth2-google", email: "cy@example.com")))

            #expect(
                try await store.changeEmail(
                    app: "app", from: "old@example.com", to: "bob@EXAMPLE.com", verified: false, vouched: nil, keepSession: nil) == .taken)
            #expect(
                try await store.changeEmail(
                    app: "app", from: "old@example.com", to: "cy@example.com", verified: true, vouched: "cy@example.com", keepSession: nil)
                    == .taken)
            #expect(
                try await store.changeEmail(
                    app: "app", from: "nobody@example.com", to: "x@example.com", verified: false, vouched: nil, keepSession: nil) == .notFound)
            #expect(try await store.sessions(userId: "ann", app: "app").count == 2, "a refused change changes nothing")

            #expect(
                try await store.changeEmail(
                    app: "app", from: "old@example.com", to: "New@example.com", verified: false, vouched: nil, keepSession: "keep")
                    == .changed)
            #expect(try await store.userpassAccount(app: "app", email: "old@example.com") == nil)
            let moved = try #require(try await store.userpassAccount(app: "app", email: "New@example.com"))
            #expect(moved.identityId == "u1" && moved.emailVerified == false)
            let user = try #require(try await store.user(id: "ann", app: "app"))
            #expect(user.data["email"] == "New@example.com")
            #expect(user.identities.first?.data["email"] == "New@example.com")
            #expect(user.identities.first?.email == nil, "an unproven email vouches for nothing")
            #expect(try await store.sessions(userId: "ann", app: "app").map(\.id) == ["keep"])
            #expect(
                try await store.consumeToken(app: "app", kind: .reset, id: "t1", digest: [1], now: 2) == nil,
                "the old mailbox's tokens are spent")

            // Proven: the account is confirmed, the identity vouches; no session kept.
            #expect(
                try await store.changeEmail(
                    app: "app", from: "New@example.com", to: "new@example.com", verified: true, vouched: "new@example.com", keepSession: nil)
                    == .changed)
            #expect(try await store.userpassAccount(app: "app", email: "new@example.com")?.emailVerified == true)
            #expect(try await store.user(id: "ann", app: "app")?.identities.first?.email == "new@example.com")
            #expect(try await store.sessions(userId: "ann", app: "app").isEmpty)
        }
    }

    /// A token of an email change holds the email the account moves to.
    @Test(arguments: Engine.allCases)
    func anEmailChangeTokenHoldsTheNewEmail(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertToken(
                OneTimeToken(
                    id: "c1", appId: "app", kind: .changeEmail, email: "a@example.com", digest: [7], expiresAt: 100,
                    newEmail: "b@example.com"), now: 1, keep: 3)
            #expect(try await store.peekToken(app: "app", kind: .changeEmail, id: "c1", digest: [7], now: 2)?.newEmail == "b@example.com")
            #expect(try await store.useToken(app: "app", kind: .confirm, id: "c1", digest: [7], now: 2) == nil, "another kind")
            let used = try await store.useToken(app: "app", kind: .changeEmail, id: "c1", digest: [7], now: 2)
            #expect(used?.email == "a@example.com" && used?.newEmail == "b@example.com")
            #expect(try await store.useToken(app: "app", kind: .changeEmail, id: "c1", digest: [7], now: 2) == nil, "used once")
        }
    }
}

/// The claims a session's login gave its tokens, on every engine.
extension StoreConformanceTests {
    @Test(arguments: Engine.allCases)
    func aSessionKeepsItsLoginsClaims(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("hal", Self.identity("h1")))
            var session = Self.session("c1", user: "hal", createdAt: 10)
            session.claims = ["role": "admin", "level": 3]
            try await store.insertSession(session)
            try await store.insertSession(Self.session("c2", user: "hal", createdAt: 20))
            #expect(try await store.sessionWithUser(id: "c1", identities: true)?.0.claims == ["role": "admin", "level": 3])
            #expect(try await store.sessions(userId: "hal", app: "app").map(\.claims) == [["role": "admin", "level": 3], nil])
            let refreshed = try await store.refreshSession(id: "c1", digest: session.refreshDigest, now: 30, due: 30, identities: true)
            #expect(refreshed?.0.claims == ["role": "admin", "level": 3])
        }
    }
}
