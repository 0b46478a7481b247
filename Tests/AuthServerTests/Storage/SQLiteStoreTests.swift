// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import GRDB
import Testing

/// The SQLite store on a real database file: reads run on their own read-only connections
/// (SQLiteReadConnection), so what they see of other connections' writes is tested here.
@Suite(.timeLimit(.minutes(5))) struct SQLiteStoreTests {
    /// A database file in a fresh directory, removed at the end.
    final class DatabaseFile {
        let directory = Scratch.path("store")
        var path: String { directory + "/authsh.sqlite" }
        init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static func user(_ id: String, identities: Int = 1) -> UserRecord {
        var user = UserRecord(id: id, appId: "app", data: ["name": .string("n-\(id)")], createdAt: 1)
        user.identities = (0..<identities).map {
            IdentityRecord(externalId: "\(id)-\($0)", providerType: "anon-user", providerId: "p", data: ["k": .int32(Int32($0))])
        }
        return user
    }

    static func session(_ id: String, user: String) -> SessionRecord {
        SessionRecord(
            id: id, appId: "app", userId: user, deviceId: "d", providerType: "anon-user", identityId: "\(user)-0",
            refreshDigest: [1, 2, 3], createdAt: 1, expiresAt: nil)
    }

    /// Two servers on one database (two `authsh` runs on one `--data`): what one writes, the
    /// other reads at once; a logout or a deletion on one is seen by the next read of the other.
    @Test func twoStoresOnOneFileSeeEachOthersCommits() async throws {
        let file = try DatabaseFile()
        let a = try SQLiteStore(path: file.path)
        let b = try SQLiteStore(path: file.path)
        #expect(try await b.sessionWithUser(id: "s1", identities: true) == nil)

        try await a.insertUser(Self.user("u1", identities: 2))
        try await a.insertSession(Self.session("s1", user: "u1"))
        let found = try #require(try await b.sessionWithUser(id: "s1", identities: true))
        #expect(found.0 == Self.session("s1", user: "u1"))
        #expect(found.1 == Self.user("u1", identities: 2))
        #expect(try await b.sessionWithUser(id: "s1", identities: false)?.1.identities == [])

        try await a.setCustomData(["plan": "pro"], userId: "u1", app: "app")
        #expect(try await b.user(id: "u1", app: "app")?.customData == ["plan": "pro"])
        #expect(try await b.user(id: "u1", app: "other") == nil)
        #expect(try await b.user(app: "app", providerType: "anon-user", externalId: "u1-1")?.customData == ["plan": "pro"])

        try await a.deleteSession(id: "s1")
        #expect(try await b.sessionWithUser(id: "s1", identities: false) == nil)
        try await a.deleteUser(id: "u1", app: "app")
        #expect(try await b.user(id: "u1", app: "app") == nil)
    }

    /// Every read gives its snapshot back when it returns: a checkpoint that needs every reader
    /// gone (TRUNCATE) succeeds right after reads of one, several and failing statements.
    @Test func readsLeaveNoSnapshotBehind() async throws {
        let file = try DatabaseFile()
        let store = try SQLiteStore(path: file.path)
        try await store.insertUser(Self.user("u1", identities: 3))
        try await store.insertSession(Self.session("s1", user: "u1"))
        for id in ["u1", "nobody"] { _ = try await store.user(id: id, app: "app") }
        _ = try await store.sessionWithUser(id: "s1", identities: true)
        _ = try await store.sessionWithUser(id: "s1", identities: false)
        _ = try await store.apiKeys(userId: "u1")
        _ = try await store.userId(app: "app", providerType: "anon-user", externalId: "u1-2")
        try await store.insertUser(Self.user("u2"))  // something in the WAL to checkpoint

        let checker = try DatabaseQueue(path: file.path)
        let (busy, _, _) = try await checker.writeWithoutTransaction { db in
            let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")!
            return (row[0] as Int, row[1] as Int, row[2] as Int)
        }
        #expect(busy == 0)
        let wal = try FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int
        #expect(wal == 0)
    }

    /// Many reads at once while identities are linked: each link adds an identity and records
    /// the new count in the profile in one write, so a read that saw the user and its
    /// identities at different moments (outside one read transaction) would disagree.
    @Test func concurrentReadsSeeWholeUsers() async throws {
        let file = try DatabaseFile()
        let store = try SQLiteStore(path: file.path)
        var first = Self.user("u1", identities: 1)
        first.data = ["identities": .int32(1)]
        try await store.insertUser(first)
        try await withThrowingTaskGroup(of: UserRecord?.self) { group in
            group.addTask {
                for k in 1..<150 {
                    let identity = IdentityRecord(externalId: "u1-\(k)", providerType: "anon-user", providerId: "p")
                    try await store.addIdentity(identity, toUser: "u1", app: "app", profile: ["identities": .int32(Int32(k + 1))])
                }
                return nil
            }
            for _ in 0..<1000 { group.addTask { try await store.user(id: "u1", app: "app") } }
            var reads = 0
            for try await user in group {
                guard let user else { continue }
                reads += 1
                #expect(user.data["identities"] == .int32(Int32(user.identities.count)))
            }
            #expect(reads == 1000)
        }
        #expect(try await store.user(id: "u1", app: "app")?.identities.count == 150)
    }

    /// A read that cannot open the database fails with the store's error, naming the operation
    /// and nothing else.
    @Test func aReadThatCannotOpenTheFileIsUnavailable() async throws {
        let file = try DatabaseFile()
        let store = try SQLiteStore(path: file.path)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        await #expect(throws: StoreError.unavailable("read user")) { try await store.user(id: "u1", app: "app") }
    }

    /// The in-memory database (tests, `--data :memory:`) runs the same reads on its one
    /// connection.
    @Test func inMemoryReadsUseTheSameQueries() async throws {
        let store = try SQLiteStore(path: nil)
        try await store.insertUser(Self.user("u1", identities: 2))
        try await store.insertSession(Self.session("s1", user: "u1"))
        #expect(try await store.user(id: "u1", app: "app") == Self.user("u1", identities: 2))
        #expect(try await store.sessionWithUser(id: "s1", identities: true)?.1 == Self.user("u1", identities: 2))
        #expect(try await store.userId(app: "app", providerType: "anon-user", externalId: "u1-1") == "u1")
        #expect(try await store.user(app: "app", providerType: "anon-user", externalId: "u1-1") == Self.user("u1", identities: 2))
        #expect(try await store.user(app: "other", providerType: "anon-user", externalId: "u1-1") == nil)
    }

    /// A database made by the previous release (migrations up to v2) keeps its users when the
    /// server opens it, and its email/password identities hold their emails at once.
    @Test func aVersion2DatabaseIsMigratedWithItsEmailsKept() async throws {
        let file = try DatabaseFile()
        do {
            // Made as the previous release made it: by GRDB's migrator, which recorded the
            // versions it applied in its own table.
            let pool = try DatabasePool(path: file.path)
            var migrator = DatabaseMigrator()
            for (version, sql) in SQLiteSchema.migrations.prefix(2) {
                migrator.registerMigration(version) { db in try db.execute(sql: sql) }
            }
            try migrator.migrate(pool)
            try await pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO users (id, app_id, type, data, created_at) VALUES ('u1', 'app', 'normal', '{}', 1);
                        INSERT INTO identities (app_id, provider_type, external_id, user_id, provider_id, data, position)
                            VALUES ('app', 'local-userpass', 'i1', 'u1', 'p', '{"email":"Old@Example.com"}', 0);
                        INSERT INTO sessions (id, app_id, user_id, device_id, provider_type, identity_id, refresh_digest, created_at)
                            VALUES ('s1', 'app', 'u1', 'd', 'local-userpass', 'i1', x'01', 5);
                        """)
            }
        }
        let store = try SQLiteStore(path: file.path)
        #expect(
            try await store.emailHolder(app: "app", email: "old@example.com", accounts: false)
                == EmailHolder(userId: "u1", providers: ["local-userpass"]))
        #expect(try await store.user(id: "u1", app: "app")?.identities.first?.email == "old@example.com")
        let sessions = try await store.sessions(userId: "u1", app: "app")
        #expect(sessions.map(\.id) == ["s1"] && sessions.first?.lastUsed == nil)
    }
}
