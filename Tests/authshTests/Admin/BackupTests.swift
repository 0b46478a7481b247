// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `authsh admin backup` and `restore`: a copy made while a server registers users, put in
/// place of a new data directory's database, holds every user acknowledged before the backup
/// started; a restore refuses a database a server has open.
@Suite(.serialized, .binary, .timeLimit(.minutes(4))) struct BackupTests {
    @Test func aBackupUnderWritesRestoresEveryAcknowledgedUser() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(CrashRecoveryTests.config, to: dir + "/config.json")
        let process = try await ServerProcess(["--data", dir + "/one", "--config", dir + "/config.json"], examplePlugins: false)
        let server = JSONHTTP(origin: process.origin)
        let load = CrashRecoveryTests.Load()
        let backup = dir + "/backup.sqlite"
        var before: [(email: String, userId: String)] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask { await CrashRecoveryTests.client(client, round: 1, server: server, into: load, while: load) }
            }
            let started = await PostgresRestartTests.waitFor(.seconds(60)) { load.users.withLock { $0.count } >= 20 }
            #expect(started != nil, "the registrations never got going: \(CrashRecoveryTests.errors(process))")
            // Everything acknowledged up to here must be in the copy; registrations go on meanwhile.
            before = load.users.withLock { $0 }
            let copied = try await Binary.run(["admin", "--data", dir + "/one", "backup", backup])
            #expect(copied.status == 0, "\(copied.stderr)")
            #expect(copied.stdout.hasPrefix("backed up \(dir)/one/authsh.sqlite to \(backup) ("), "\(copied.stdout)")
            let more = await PostgresRestartTests.waitFor(.seconds(60)) { load.users.withLock { $0.count } >= before.count + 10 }
            #expect(more != nil, "the server stopped registering during the backup")
            // A server has this database open: no restore over it.
            let refused = try await Binary.run(["admin", "--data", dir + "/one", "restore", backup])
            #expect(refused.status == 1 && refused.stderr.contains("is in use"), "\(refused.stderr)")
            load.running.store(false, ordering: .relaxed)
            try await group.waitForAll()
        }
        var info = stat()
        #expect(stat(backup, &info) == 0 && info.st_mode & 0o777 == 0o600, "the copy holds password hashes")
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"), "the copy stands alone")
        // An existing file is never overwritten.
        let again = try await Binary.run(["admin", "--data", dir + "/one", "backup", backup])
        #expect(again.status == 1 && again.stderr.contains("exists"), "\(again.stderr)")

        let restored = try await Binary.run(["admin", "--data", dir + "/two", "restore", backup])
        #expect(restored.status == 0, "\(restored.stderr)")
        let second = try await ServerProcess(["--data", dir + "/two", "--config", dir + "/config.json"], examplePlugins: false)
        let there = JSONHTTP(origin: second.origin)
        for user in before {
            let login = try await there.emailLogin(user.email, "password1")
            guard login.status == 200, login["user_id"] == user.userId else {
                Issue.record("\(user.email), acknowledged before the backup, does not log in after the restore: \(login.status) \(login.text)")
                return
            }
        }
    }

    @Test func whatIsNoSQLiteBackupIsRefused() async throws {
        let dir = try Binary.temporaryDirectory()
        let postgres = try await Binary.run(["admin", "--database", "postgres://authsh@localhost/x", "backup", dir + "/b.sqlite"])
        #expect(postgres.status == 1 && postgres.stderr.contains("pg_dump"), "\(postgres.stderr)")
        try Binary.write("not a database", to: dir + "/junk")
        let junk = try await Binary.run(["admin", "--data", dir + "/new", "restore", dir + "/junk"])
        #expect(junk.status == 1, "\(junk.stderr)")
        let missing = try await Binary.run(["admin", "--data", dir + "/none", "backup", dir + "/b.sqlite"])
        #expect(missing.status == 1 && missing.stderr.contains("no database"), "\(missing.stderr)")
        let remote = try await Binary.run(["admin", "--server", "https://auth.example.com", "backup", dir + "/b.sqlite"])
        #expect(remote.status == 64, "\(remote.stderr)")
    }

    /// A restore checks the file before it touches the live database: a SQLite file that is
    /// no authsh database (one `users` table), one whose schema is a newer authsh's or lacks a
    /// table, and one that fails `PRAGMA integrity_check` (an index that does not match its
    /// table, which `quick_check` does not see) are refused, and the live database is byte for
    /// byte what it was. A restore keeps the database it replaced until a server starts.
    @Test func aRestoreRefusesWhatIsNoAuthshDatabaseAndKeepsWhatItReplaces() async throws {
        let dir = try Binary.temporaryDirectory()
        let data = dir + "/data"
        let live = data + "/authsh.sqlite"
        let migrated = try await Binary.run(["serve", "--data", data, "migrate"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let backedUp = try await Binary.run(["admin", "--data", data, "backup", dir + "/good.sqlite"])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")
        let made = try await Binary.run(
            [
                "-c",
                """
                import shutil, sqlite3, sys
                d = sys.argv[1]
                def edit(name, *statements):
                    if name != "users-only": shutil.copy(d + "/good.sqlite", d + "/" + name + ".sqlite")
                    db = sqlite3.connect(d + "/" + name + ".sqlite")
                    for s in statements: db.execute(s)
                    db.commit()
                    db.close()
                edit("users-only", "CREATE TABLE users (id TEXT PRIMARY KEY)")
                edit("newer", "INSERT INTO grdb_migrations VALUES ('v99: a newer authsh')")
                edit("short", "DROP TABLE passkeys")
                edit("damaged", "CREATE TABLE extra (a INTEGER)", "INSERT INTO extra VALUES (1), (2), (3)",
                     "CREATE INDEX extra_a ON extra (a)", "PRAGMA writable_schema = ON",
                     "UPDATE sqlite_master SET sql = 'CREATE INDEX extra_a ON extra (a DESC)' WHERE name = 'extra_a'")
                """, dir,
            ], executable: "/usr/bin/python3")
        #expect(made.status == 0, "\(made.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: live))
        for (name, reason) in [
            ("users-only", "no grdb_migrations table"), ("newer", "v99: a newer authsh"), ("short", "lacks"),
            ("damaged", "integrity_check"),
        ] {
            let refused = try await Binary.run(["admin", "--data", data, "restore", dir + "/\(name).sqlite"])
            #expect(refused.status == 1 && refused.stderr.contains(reason), "\(name): \(refused.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: live)) == before, "\(name): the live database was touched")
        }
        #expect(!FileManager.default.fileExists(atPath: live + ".replaced"))

        let restored = try await Binary.run(["admin", "--data", data, "restore", dir + "/good.sqlite"])
        #expect(restored.status == 0 && restored.stdout.contains("kept as \(live).replaced"), "\(restored.stdout) \(restored.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: live + ".replaced")) == before)
        var info = stat()
        #expect(stat(live, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let server = try await ServerProcess(["--data", data], examplePlugins: false)
        #expect(!FileManager.default.fileExists(atPath: live + ".replaced"), "a server started on the restored database")
        _ = server
    }
}
