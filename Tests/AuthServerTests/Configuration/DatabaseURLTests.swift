// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthServer
import Foundation
import TestSupport
import Testing

/// `--database` and the config key `database`: what they accept, what they refuse (naming
/// what is wrong), and that a password never shows.
@Suite(.timeLimit(.minutes(5))) struct DatabaseURLTests {
    @Test func theFormsThatAreAccepted() throws {
        let tcp = try PostgresDatabase(
            url: "postgres://authsh@db.example.com:6543/auth?sslmode=require&pool=3", key: "database",
            passwordAllowed: false, environment: ["PGPASSWORD": "from-env"])
        #expect(tcp.user == "authsh" && tcp.host == "db.example.com" && tcp.port == 6543 && tcp.database == "auth")
        #expect(tcp.sslMode == "require" && tcp.poolSize == 3 && tcp.password == "from-env")
        #expect(tcp.description == "postgres://authsh@db.example.com:6543/auth")
        let socket = try PostgresDatabase(
            url: "postgresql://me@/db?host=/run/postgresql", key: "database", passwordAllowed: false,
            environment: [:])
        #expect(socket.socketDirectory == "/run/postgresql" && socket.host == nil && socket.port == 5432 && socket.password == nil)
        #expect(
            try ServerConfiguration.Database.parse("sqlite:/var/lib/authsh/db.sqlite", key: "--database", passwordAllowed: false)
                == .sqliteFile("/var/lib/authsh/db.sqlite"))
    }

    @Test(arguments: [
        ("postgres://u:hunter2@h/db", "holds a password: give it in PGPASSWORD"),
        ("mysql://u@h/db", "must be sqlite:PATH or postgres://"),
        ("postgres://h/db", "needs a user"),
        ("postgres://u@h", "needs a database name"),
        ("postgres://u@h/db?sslmode=maybe", "sslmode must be one of disable, prefer, require, verify-ca, verify-full"),
        ("postgres://u@h/db?pool=0", "pool must be from 1 to 500"),
        ("postgres://u@h/db?timeout=3", "unknown parameter 'timeout'"),
        ("postgres://u@/db", "needs a host"),
        ("sqlite:", "sqlite: needs a file path"),
    ])
    func badURLsAreRefusedSayingWhy(url: String, reason: String) {
        do {
            _ = try ServerConfiguration.Database.parse(url, key: "--database", passwordAllowed: false)
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
            #expect(!error.description.contains("hunter2"), "the password is in the message: \(error)")
        }
    }

    @Test func aPasswordComesFromTheEnvironmentOrAFileNeverFromAPlainValue() throws {
        var c = ServerConfiguration()
        #expect(throws: ConfigError.self) {
            try c.loadConfig(Array(#"{"database": "postgres://u:hunter2@h/db", "apps": [{"id": "a"}]}"#.utf8), file: "authsh.json")
        }
        setenv("AUTHSH_TEST_DATABASE_URL", "postgres://u:s3cret@h/db", 1)
        defer { unsetenv("AUTHSH_TEST_DATABASE_URL") }
        try c.loadConfig(Array(#"{"database": {"env": "AUTHSH_TEST_DATABASE_URL"}, "apps": [{"id": "a"}]}"#.utf8), file: "authsh.json")
        guard case .postgres(let db) = c.database else {
            Issue.record("not PostgreSQL: \(c.database)")
            return
        }
        #expect(db.password == "s3cret" && !db.description.contains("s3cret"))
    }

    /// A database that cannot be reached fails the start with a config error that names it
    /// without its password.
    @Test func anUnreachableDatabaseFailsTheStartSayingWhich() async throws {
        var c = TestServer.configuration()
        let missing = Scratch.path("no-postgres")
        var database = try PostgresDatabase(
            url: "postgres://u@/db?host=\(missing)", key: "database", passwordAllowed: false,
            environment: ["PGPASSWORD": "hunter2"])
        database.startupTimeout = .seconds(3)
        c.database = .postgres(database)
        do {
            _ = try await buildApplication(c)
            Issue.record("a server started on a database that does not exist")
        } catch let error as ConfigError {
            #expect(error.description.contains("postgres://u@:5432/db?host=\(missing)"), "\(error)")
            #expect(!error.description.contains("hunter2"))
        }
    }
}
