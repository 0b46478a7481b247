// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Testing

/// The contract of ``AuthStore``, method by method, run against every engine: what a store
/// must do whatever database is behind it (SQLite on a file and in memory, and PostgreSQL on
/// a private cluster the tests start).
@Suite(.timeLimit(.minutes(5))) struct StoreConformanceTests {
    enum Engine: String, CaseIterable, CustomStringConvertible {
        case sqliteFile, sqliteMemory, postgres
        var description: String { rawValue }

        /// A new, empty store of this engine, and what to call when done with it.
        func open() async throws -> (any AuthStore, cleanup: @Sendable () -> Void) {
            switch self {
            case .sqliteMemory:
                return (try SQLiteStore(path: nil), {})
            case .sqliteFile:
                let directory = try Scratch.directory("conformance")
                return (try SQLiteStore(path: directory + "/authsh.sqlite"), { try? FileManager.default.removeItem(atPath: directory) })
            case .postgres:
                let store = try await PostgresCluster.shared().makeStore()
                return (store, { store.close() })
            }
        }
    }

    static func withStore(_ engine: Engine, _ body: (any AuthStore) async throws -> Void) async throws {
        let (store, cleanup) = try await engine.open()
        defer { cleanup() }
        try await body(store)
    }

    static func identity(_ id: String, _ type: String = "anon-user", email: String? = nil) -> IdentityRecord {
        IdentityRecord(externalId: id, providerType: type, providerId: "p-\(type)", data: ["k": .string(id)], email: email)
    }

    static func user(_ id: String, app: String = "app", createdAt: Int64 = 1, _ identities: IdentityRecord...) -> UserRecord {
        UserRecord(id: id, appId: app, data: ["name": .string(id)], createdAt: createdAt, identities: identities)
    }

    static func session(
        _ id: String, user: String, app: String = "app", type: String = "anon-user", identity: String = "i",
        createdAt: Int64 = 10
    ) -> SessionRecord {
        SessionRecord(
            id: id, appId: app, userId: user, deviceId: "dev-\(id)", providerType: type, identityId: identity,
            refreshDigest: Array("r-\(id)".utf8), createdAt: createdAt, expiresAt: nil)
    }

    static func isConflict(_ body: () async throws -> Void) async -> Bool {
        do { try await body() } catch let e as StoreError { return e.isConflict } catch { return false }
        return false
    }

    @Test(arguments: Engine.allCases)
    func usersAndIdentities(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            let ann = Self.user("ann", Self.identity("a1"))
            try await store.insertUser(ann)
            #expect(try await store.user(id: "ann", app: "app") == ann)
            #expect(try await store.user(id: "ann", app: "other") == nil, "users belong to one app")
            #expect(try await store.userId(app: "app", providerType: "anon-user", externalId: "a1") == "ann")
            #expect(try await store.user(app: "app", providerType: "anon-user", externalId: "a1") == ann)
            #expect(
                await Self.isConflict { try await store.insertUser(Self.user("bob", Self.identity("a1"))) },
                "an identity belongs to one user")
            #expect(try await store.user(id: "bob", app: "app") == nil, "a refused insert leaves nothing behind")

            // Links keep their order and merge the profile.
            let github = Self.identity("g1", "oauth2-github", email: "ann@example.com")
            try await store.addIdentity(github, toUser: "ann", app: "app", profile: ["name": "ann", "email": "ann@example.com"])
            var linked = try #require(try await store.user(id: "ann", app: "app"))
            #expect(linked.identities == [Self.identity("a1"), github])
            #expect(linked.data["email"] == "ann@example.com")
            #expect(
                await Self.isConflict {
                    try await store.addIdentity(github, toUser: "ann", app: "app", profile: [:])
                })

            // Custom data.
            #expect(try await store.setCustomData(["plan": "pro"], userId: "ann", app: "app"))
            #expect(try await store.setCustomData(["plan": "pro"], userId: "nobody", app: "app") == false)
            linked = try #require(try await store.user(id: "ann", app: "app"))
            #expect(linked.customData == ["plan": "pro"])

            // Unlink: never the last identity.
            #expect(try await store.removeIdentity(app: "app", userId: "ann", providerType: "oauth2-github", externalId: "x") == .notFound)
            #expect(try await store.removeIdentity(app: "app", userId: "ann", providerType: "anon-user", externalId: "a1") == .removed)
            #expect(try await store.removeIdentity(app: "app", userId: "ann", providerType: "oauth2-github", externalId: "g1") == .lastIdentity)
            #expect(try await store.user(id: "ann", app: "app")?.identities == [github])
            #expect(try await store.userId(app: "app", providerType: "anon-user", externalId: "a1") == nil)

            // A changed email is kept.
            try await store.setIdentityEmail("new@example.com", app: "app", providerType: "oauth2-github", externalId: "g1")
            #expect(try await store.user(id: "ann", app: "app")?.identities.first?.email == "new@example.com")
        }
    }

    @Test(arguments: Engine.allCases)
    func deletingAUserTakesEverythingOfItsOwn(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            let userpass = Self.identity("up1", "local-userpass", email: "cy@example.com")
            try await store.insertUserpassAccount(
                UserpassAccount(
                    appId: "app", email: "cy@example.com", passwordHash: "h",
                    identityId: "up1", confirmed: true, createdAt: 1))
            try await store.insertUser(Self.user("cy", userpass))
            try await store.insertUser(Self.user("dee", Self.identity("d1")))
            try await store.insertSession(Self.session("s1", user: "cy"))
            try await store.insertSession(Self.session("s2", user: "dee"))
            let key = APIKeyRecord(id: "k1", appId: "app", userId: "cy", name: "ci", digest: [9], disabled: false, createdAt: 1)
            #expect(try await store.insertAPIKey(key, limit: 20))

            try await store.deleteUser(id: "cy", app: "app")
            #expect(try await store.user(id: "cy", app: "app") == nil)
            #expect(try await store.sessionState(id: "s1") == nil)
            #expect(try await store.apiKey(app: "app", digest: [9]) == nil)
            #expect(try await store.userpassAccount(app: "app", email: "cy@example.com") == nil, "its email/password account goes too")
            #expect(try await store.sessionState(id: "s2") == SessionState(appId: "app", userId: "dee", userDisabled: false))
        }
    }

    @Test(arguments: Engine.allCases)
    func emailPasswordAccountsAndTheirTokens(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            let account = UserpassAccount(
                appId: "app", email: "eve@example.com", passwordHash: "h1", identityId: "e1",
                confirmed: false, createdAt: 1)
            try await store.insertUserpassAccount(account)
            #expect(await Self.isConflict { try await store.insertUserpassAccount(account) })
            try await store.confirmUserpassAccount(app: "app", email: "eve@example.com")
            try await store.setPassword(app: "app", email: "eve@example.com", hash: "h2")
            var stored = try #require(try await store.userpassAccount(app: "app", email: "eve@example.com"))
            #expect(stored.confirmed && stored.passwordHash == "h2")

            // A reset ends every session of the account's user; a change keeps one.
            try await store.insertUser(Self.user("eve", Self.identity("e1", "local-userpass", email: "eve@example.com")))
            for id in ["s1", "s2", "s3"] { try await store.insertSession(Self.session(id, user: "eve")) }
            try await store.changePassword(app: "app", email: "eve@example.com", hash: "h3", keepSession: "s2")
            #expect(try await store.sessions(userId: "eve", app: "app").map(\.id) == ["s2"])
            try await store.resetPassword(app: "app", email: "eve@example.com", hash: "h4")
            #expect(try await store.sessions(userId: "eve", app: "app").isEmpty)
            stored = try #require(try await store.userpassAccount(app: "app", email: "eve@example.com"))
            #expect(stored.passwordHash == "h4")

            // One-time tokens: used once, not after expiry, and a use spends its siblings.
            func token(_ id: String, expires: Int64 = 100) -> OneTimeToken {
                OneTimeToken(id: id, appId: "app", kind: .reset, email: "eve@example.com", digest: Array(id.utf8), expiresAt: expires)
            }
            try await store.insertToken(token("t1"), now: 0, keep: 5)
            try await store.insertToken(token("t2"), now: 0, keep: 5)
            try await store.insertToken(token("t3", expires: 5), now: 0, keep: 5)
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "t1", digest: Array("no".utf8), now: 1) == nil)
            #expect(try await store.consumeToken(app: "app", kind: .confirm, id: "t1", digest: Array("t1".utf8), now: 1) == nil)
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "t3", digest: Array("t3".utf8), now: 6) == nil)
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "t1", digest: Array("t1".utf8), now: 1) == "eve@example.com")
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "t1", digest: Array("t1".utf8), now: 1) == nil)
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "t2", digest: Array("t2".utf8), now: 1) == nil)
            // Only the newest `keep` stay valid.
            for i in 1...3 { try await store.insertToken(token("k\(i)"), now: 0, keep: 2) }
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "k1", digest: Array("k1".utf8), now: 1) == nil)
            try await store.discardToken(app: "app", id: "k3")
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "k3", digest: Array("k3".utf8), now: 1) == nil)
            #expect(try await store.consumeToken(app: "app", kind: .reset, id: "k2", digest: Array("k2".utf8), now: 1) == "eve@example.com")

            try await store.deleteUserpassAccount(app: "app", email: "eve@example.com")
            #expect(try await store.userpassAccount(app: "app", email: "eve@example.com") == nil)
        }
    }

    /// An account that logs in before its email is proven (Firebase's sign-up) keeps that until
    /// a mail proves it: a confirmation, or a reset by mail (a change of password does not).
    @Test(arguments: Engine.allCases)
    func anUnprovenEmailIsProvenByAConfirmationOrAReset(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            func account(_ email: String, _ identity: String) -> UserpassAccount {
                UserpassAccount(
                    appId: "app", email: email, passwordHash: "h", identityId: identity, confirmed: true, createdAt: 1,
                    emailVerified: false)
            }
            func proven(_ email: String) async throws -> Bool? { try await store.userpassAccount(app: "app", email: email)?.emailVerified }
            try await store.insertUserpassAccount(account("a@example.com", "a1"))
            try await store.insertUserpassAccount(account("b@example.com", "b1"))
            #expect(try await proven("a@example.com") == false)
            #expect(try await store.userpassAccount(app: "app", identityId: "a1")?.emailVerified == false)
            // Not an email holder while unproven.
            #expect(try await store.emailHolder(app: "app", email: "a@example.com", accounts: true) == nil)
            try await store.changePassword(app: "app", email: "a@example.com", hash: "h2", keepSession: "none")
            #expect(try await proven("a@example.com") == false)
            try await store.confirmUserpassAccount(app: "app", email: "a@example.com")
            #expect(try await proven("a@example.com") == true)
            #expect(try await store.emailHolder(app: "app", email: "a@example.com", accounts: true) != nil)
            try await store.resetPassword(app: "app", email: "b@example.com", hash: "h3")
            #expect(try await proven("b@example.com") == true)
            // An administrator's word, either way.
            try await store.setEmailVerified(false, app: "app", email: "b@example.com")
            #expect(try await proven("b@example.com") == false)
            try await store.setEmailVerified(true, app: "app", email: "b@example.com")
            #expect(try await proven("b@example.com") == true)
        }
    }

    /// Firebase's `validSince`: the sessions that began before it end, later ones stay, and the
    /// user records it; another app's user is none of its business.
    @Test(arguments: Engine.allCases)
    func revokingTokensEndsTheSessionsBeforeATime(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("fay", Self.identity("f1")))
            try await store.insertSession(Self.session("s1", user: "fay", createdAt: 10))
            try await store.insertSession(Self.session("s2", user: "fay", createdAt: 20))
            #expect(try await store.adminUser(id: "fay", app: "app")?.validSince == nil)
            #expect(try await store.revokeTokens(userId: "fay", app: "other", before: 15) == false)
            #expect(try await store.sessions(userId: "fay", app: "app").count == 2)
            #expect(try await store.revokeTokens(userId: "fay", app: "app", before: 15))
            #expect(try await store.sessions(userId: "fay", app: "app").map(\.id) == ["s2"])
            #expect(try await store.adminUser(id: "fay", app: "app")?.validSince == 15)
            #expect(try await store.listUsers(app: "app", query: UserQuery()).first?.validSince == 15)
        }
    }

    /// A session keeps how its login proved the person, for the APIs whose tokens do not say.
    @Test(arguments: Engine.allCases)
    func aSessionKeepsItsLoginsMethods(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("gus", Self.identity("g1")))
            var session = Self.session("m1", user: "gus", createdAt: 10)
            session.methods = ["pwd", "otp", "mfa"]
            try await store.insertSession(session)
            try await store.insertSession(Self.session("m2", user: "gus", createdAt: 20))
            #expect(try await store.sessionState(id: "m1")?.methods == ["pwd", "otp", "mfa"])
            #expect(try await store.sessionState(id: "m2")?.methods == [])
            #expect(try await store.sessions(userId: "gus", app: "app").map(\.methods) == [["pwd", "otp", "mfa"], []])
            #expect(try await store.sessionWithUser(id: "m1", identities: false)?.0.methods == ["pwd", "otp", "mfa"])
        }
    }

    @Test(arguments: Engine.allCases)
    func sessions(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            var fay = Self.user("fay", Self.identity("f1"))
            try await store.insertUser(fay)
            try await store.insertSession(Self.session("s1", user: "fay", createdAt: 10))
            try await store.insertSession(Self.session("s2", user: "fay", createdAt: 20))
            try await store.insertSession(Self.session("s3", user: "fay", createdAt: 30))

            let (session, user) = try #require(try await store.sessionWithUser(id: "s1", identities: true))
            #expect(session == Self.session("s1", user: "fay", createdAt: 10) && user == fay)
            #expect(try await store.sessionWithUser(id: "s1", identities: false)?.1.identities == [])
            #expect(try await store.sessionState(id: "s1") == SessionState(appId: "app", userId: "fay", userDisabled: false))

            _ = try await store.refreshSession(id: "s2", digest: Array("r-s2".utf8), now: 99, due: 99 - 60)
            let listed = try await store.sessions(userId: "fay", app: "app")
            #expect(listed.map(\.id) == ["s1", "s2", "s3"], "oldest first")
            #expect(listed.map(\.lastUsed) == [nil, 99, nil])
            #expect(listed[0].deviceId == "dev-s1" && listed[0].providerType == "anon-user")
            #expect(try await store.sessionWithUser(id: "s2", identities: false)?.0.lastUsed == 99)

            #expect(try await store.deleteSession(id: "s1", userId: "someone", app: "app") == false)
            #expect(try await store.deleteSession(id: "s1", userId: "fay", app: "app"))
            #expect(try await store.sessionState(id: "s1") == nil)
            #expect(try await store.deleteSessions(userId: "fay", app: "app", except: "s3") == 1)
            #expect(try await store.sessions(userId: "fay", app: "app").map(\.id) == ["s3"])
            try await store.deleteSession(id: "s3")
            #expect(try await store.sessionWithUser(id: "s3", identities: false) == nil)

            // A disabled user's sessions say so.
            fay = Self.user("gil", Self.identity("g1"))
            fay.disabled = true
            try await store.insertUser(fay)
            try await store.insertSession(Self.session("s4", user: "gil"))
            #expect(try await store.sessionState(id: "s4")?.userDisabled == true)
        }
    }

    /// A new user's login is one transaction: the user, its identities and its session, or none.
    @Test(arguments: Engine.allCases)
    func aNewUsersLoginIsOneTransaction(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(
                Self.user("ann", Self.identity("a1")), events: [], session: Self.session("s1", user: "ann"), sessionEvents: [])
            let (session, user) = try #require(try await store.sessionWithUser(id: "s1", identities: true))
            #expect(session.userId == "ann" && user.identities.map(\.externalId) == ["a1"])
            #expect(try await store.adminUser(id: "ann", app: "app")?.lastLoginAt == 10, "the session's login is the user's last")
            // An identity someone holds already: neither the user nor its session is written.
            await #expect(throws: StoreError.self) {
                try await store.insertUser(
                    Self.user("bob", Self.identity("a1")), events: [], session: Self.session("s2", user: "bob"), sessionEvents: [])
            }
            #expect(try await store.user(id: "bob", app: "app") == nil)
            #expect(try await store.sessionState(id: "s2") == nil)
        }
    }

    /// A refresh marks its session used only when it will be answered and the mark is due; it
    /// answers the session as it was before.
    @Test(arguments: Engine.allCases)
    func refreshMarksUseOnlyWhenAnsweredAndDue(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("ivy", Self.identity("i1")))
            var expiring = Self.session("s2", user: "ivy", createdAt: 10)
            expiring.expiresAt = 500
            try await store.insertSession(Self.session("s1", user: "ivy", createdAt: 10))
            try await store.insertSession(expiring)
            func lastUsed(_ id: String) async throws -> Int64? { try await store.sessionWithUser(id: id, identities: false)?.0.lastUsed }
            let digest = Array("r-s1".utf8)

            #expect(try await store.refreshSession(id: "none", digest: digest, now: 100, due: 40) == nil)
            // Another token's digest: answered (the caller refuses it), not marked.
            #expect(try await store.refreshSession(id: "s1", digest: Array("r-s2".utf8), now: 100, due: 40)?.0.id == "s1")
            #expect(try await lastUsed("s1") == nil)
            // Not due: the login (10) is after `due`.
            _ = try await store.refreshSession(id: "s1", digest: digest, now: 60, due: 0)
            #expect(try await lastUsed("s1") == nil)
            // Due: marked, and the answer is the session before the mark.
            #expect(try await store.refreshSession(id: "s1", digest: digest, now: 100, due: 40)?.0.lastUsed == nil)
            #expect(try await lastUsed("s1") == 100)
            _ = try await store.refreshSession(id: "s1", digest: digest, now: 150, due: 90)
            #expect(try await lastUsed("s1") == 100, "the last mark (100) is after due (90)")
            _ = try await store.refreshSession(id: "s1", digest: digest, now: 170, due: 110)
            #expect(try await lastUsed("s1") == 170)
            // Expired at `now`: not marked.
            _ = try await store.refreshSession(id: "s2", digest: Array("r-s2".utf8), now: 500, due: 440)
            #expect(try await lastUsed("s2") == nil)
            // A disabled user's session: not marked.
            #expect(try await store.setUserDisabled(true, id: "ivy", app: "app"))
            let (_, user) = try #require(try await store.refreshSession(id: "s1", digest: digest, now: 300, due: 240))
            #expect(user.disabled)
            #expect(try await lastUsed("s1") == 170)
        }
    }

    /// A refresh that asks for the user's identities (Firebase's) reads them in the same
    /// statement, in order, and marks use as one that does not.
    @Test(arguments: Engine.allCases)
    func aRefreshReadsTheIdentitiesWhenAskedTo(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(
                Self.user("max", Self.identity("m1", "local-userpass", email: "max@example.com"), Self.identity("m2", "oauth2-google")))
            try await store.insertSession(Self.session("s1", user: "max", createdAt: 10))
            let digest = Array("r-s1".utf8)
            let (session, user) = try #require(
                try await store.refreshSession(id: "s1", digest: digest, now: 100, due: 40, identities: true))
            #expect(session.id == "s1" && session.lastUsed == nil)
            #expect(user.identities.map(\.externalId) == ["m1", "m2"] && user.identities.first?.email == "max@example.com")
            #expect(user.identities.last?.data == ["k": "m2"] && user.data["name"] == "max")
            #expect(try await store.sessionWithUser(id: "s1", identities: false)?.0.lastUsed == 100, "marked as any refresh")
            // Marked already: the read alone, with the identities.
            #expect(try await store.refreshSession(id: "s1", digest: digest, now: 110, due: 50, identities: true)?.1.identities.count == 2)
            #expect(try await store.refreshSession(id: "none", digest: digest, now: 110, due: 50, identities: true) == nil)
        }
    }

    @Test(arguments: Engine.allCases)
    func apiKeys(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insertUser(Self.user("hal", Self.identity("h1")))
            func key(_ id: String, _ name: String) -> APIKeyRecord {
                APIKeyRecord(id: id, appId: "app", userId: "hal", name: name, digest: Array(id.utf8), disabled: false, createdAt: 1)
            }
            #expect(try await store.insertAPIKey(key("k1", "one"), limit: 2))
            #expect(await Self.isConflict { _ = try await store.insertAPIKey(key("k9", "one"), limit: 2) }, "names are unique per user")
            #expect(try await store.insertAPIKey(key("k2", "two"), limit: 2))
            #expect(try await store.insertAPIKey(key("k3", "three"), limit: 2) == false, "the limit holds")
            #expect(try await store.apiKeys(userId: "hal").map(\.id) == ["k1", "k2"])
            #expect(try await store.apiKey(id: "k2", userId: "hal")?.name == "two")
            #expect(try await store.apiKey(id: "k2", userId: "someone") == nil)
            #expect(try await store.apiKey(app: "app", digest: Array("k1".utf8))?.id == "k1")

            // Disabling or deleting a key ends the sessions it opened, and only those.
            try await store.insertSession(Self.session("by-k1", user: "hal", type: "api-key", identity: "k1"))
            try await store.insertSession(Self.session("by-k2", user: "hal", type: "api-key", identity: "k2"))
            try await store.insertSession(Self.session("other", user: "hal"))
            #expect(try await store.setAPIKeyDisabled(true, id: "k1", userId: "hal"))
            #expect(try await store.apiKey(id: "k1", userId: "hal")?.disabled == true)
            #expect(try await store.sessionState(id: "by-k1") == nil)
            #expect(try await store.setAPIKeyDisabled(false, id: "k1", userId: "hal"))
            #expect(try await store.deleteAPIKey(id: "k2", userId: "hal"))
            #expect(try await store.deleteAPIKey(id: "k2", userId: "hal") == false)
            #expect(try await store.sessionState(id: "by-k2") == nil)
            #expect(try await store.sessionState(id: "other") != nil)
        }
    }

    @Test(arguments: Engine.allCases)
    func verifiedEmailsAndPendingCredentials(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            #expect(try await store.emailHolder(app: "app", email: "ivy@example.com", accounts: true) == nil)
            // A confirmed account with no user yet holds its email (when accounts count); an unconfirmed one does not.
            try await store.insertUserpassAccount(
                UserpassAccount(
                    appId: "app", email: "Ivy@Example.com", passwordHash: "h",
                    identityId: "up", confirmed: false, createdAt: 1))
            #expect(try await store.emailHolder(app: "app", email: "ivy@example.com", accounts: true) == nil)
            try await store.confirmUserpassAccount(app: "app", email: "Ivy@Example.com")
            #expect(
                try await store.emailHolder(app: "app", email: "ivy@example.com", accounts: true)
                    == EmailHolder(userId: nil, providers: ["local-userpass"]))
            #expect(try await store.emailHolder(app: "app", email: "ivy@example.com", accounts: false) == nil)

            // The oldest user holding the email; its providers once each, never anonymous.
            try await store.insertUser(Self.user("late", createdAt: 9, Self.identity("l1", "oauth2-google", email: "ivy@example.com")))
            try await store.insertUser(
                Self.user(
                    "early", createdAt: 2, Self.identity("e0"), Self.identity("e1", "oauth2-github", email: "ivy@example.com"),
                    Self.identity("e2", "oauth2-github"), Self.identity("e3", "custom-token")))
            #expect(
                try await store.emailHolder(app: "app", email: "ivy@example.com", accounts: true)
                    == EmailHolder(userId: "early", providers: ["oauth2-github", "custom-token"]))
            #expect(try await store.emailHolder(app: "other", email: "ivy@example.com", accounts: true) == nil)

            let pending = PendingCredential(
                id: "p1", appId: "app", digest: [1, 2], email: "ivy@example.com",
                identity: Self.identity("x1", "oauth2-google", email: "ivy@example.com"), expiresAt: 50)
            try await store.insertPendingCredential(pending)
            #expect(try await store.pendingCredential(app: "app", id: "p1") == pending)
            #expect(try await store.pendingCredential(app: "other", id: "p1") == nil)
            #expect(try await store.deletePendingCredential(app: "app", id: "p1"))
            #expect(try await store.deletePendingCredential(app: "app", id: "p1") == false, "used once")
            try await store.insertPendingCredential(
                PendingCredential(
                    id: "p2", appId: "app", digest: [3], email: "e", identity: Self.identity("y"),
                    expiresAt: 50))
            #expect(try await store.deleteExpiredPendingCredentials(at: 49) == 0)
            #expect(try await store.deleteExpiredPendingCredentials(at: 50) == 1)
            #expect(try await store.pendingCredential(app: "app", id: "p2") == nil)
        }
    }

    @Test(arguments: Engine.allCases)
    func pluginValuesSigningKeysAndHousekeeping(_ engine: Engine) async throws {
        try await Self.withStore(engine) { store in
            #expect(try await store.pluginValue(app: "app", key: "k") == nil)
            #expect(try await store.setPluginValue(["n": .int32(1)], app: "app", key: "k", keyLimit: 2))
            #expect(try await store.setPluginValue(["n": .int32(2)], app: "app", key: "k", keyLimit: 2))
            #expect(try await store.pluginValue(app: "app", key: "k") == ["n": .int32(2)])
            // A new key past the limit is refused; a held key is still replaced; other apps count apart.
            #expect(try await store.setPluginValue(1, app: "app", key: "k2", keyLimit: 2))
            #expect(try await store.setPluginValue(1, app: "app", key: "k3", keyLimit: 2) == false)
            #expect(try await store.pluginValue(app: "app", key: "k3") == nil)
            #expect(try await store.setPluginValue(3, app: "app", key: "k2", keyLimit: 2))
            #expect(try await store.setPluginValue(1, app: "other", key: "k3", keyLimit: 2))
            try await store.deletePluginValue(app: "app", key: "k2")
            #expect(try await store.pluginValue(app: "other", key: "k") == nil)
            try await store.deletePluginValue(app: "app", key: "k")
            #expect(try await store.pluginValue(app: "app", key: "k") == nil)

            #expect(try await store.existingSigningKey(app: "app", algorithm: "HS256") == nil)
            let first = try await store.signingKey(app: "app", algorithm: "HS256") { [1, 2, 3] }
            let second = try await store.signingKey(app: "app", algorithm: "HS256") { [4, 5, 6] }
            #expect(first == [1, 2, 3] && second == first, "a key is made once")
            #expect(try await store.existingSigningKey(app: "app", algorithm: "HS256") == [1, 2, 3])

            // Anonymous users older than the cut go; linked or newer ones stay.
            try await store.insertUser(Self.user("old-anon", createdAt: 1, Self.identity("o1")))
            try await store.insertUser(Self.user("old-linked", createdAt: 1, Self.identity("o2"), Self.identity("o3", "local-userpass")))
            try await store.insertUser(Self.user("new-anon", createdAt: 100, Self.identity("n1")))
            #expect(try await store.deleteAnonymousUsers(createdBefore: 50) == 1)
            #expect(try await store.user(id: "old-anon", app: "app") == nil)
            #expect(try await store.user(id: "old-linked", app: "app") != nil)
            #expect(try await store.user(id: "new-anon", app: "app") != nil)

            // Wiping one app leaves the others.
            try await store.insertUser(Self.user("elsewhere", app: "other", Self.identity("w1")))
            try await store.wipe(app: "app")
            #expect(try await store.user(id: "old-linked", app: "app") == nil)
            #expect(try await store.user(id: "elsewhere", app: "other") != nil)
        }
    }
}
