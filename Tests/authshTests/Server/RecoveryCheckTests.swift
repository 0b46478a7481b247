// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// A SQLite database whose write-ahead log was damaged, or whose file was lost, while the server
/// was down: `authsh serve` exits 78 naming the file and changes nothing, where SQLite alone
/// would open it without the committed changes and say nothing (and, with the file gone, start
/// a new database). A log a crash cut off at its end is not damage: the server starts.
///
/// The logs are real ones: a server is killed (SIGKILL) after some registrations, leaving its
/// log unreplayed, and each case damages a copy of that data directory.
@Suite(.serialized, .binary, .timeLimit(.minutes(5))) struct RecoveryCheckTests {
    static let frameSize = 24 + 4096

    /// A data directory left by a server killed after registering `count` users, and the users.
    static func crashedDataDirectory(users count: Int) async throws -> (dir: String, emails: [String]) {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(CrashRecoveryTests.config, to: dir + "/config.json")
        let process = try await ServerProcess(["--data", dir + "/data", "--config", dir + "/config.json"], examplePlugins: false)
        let server = JSONHTTP(origin: process.origin)
        var emails: [String] = []
        for n in 0..<count {
            let email = "u\(n)@example.com"
            let r = try await server.send(
                .POST, server.app() + "/auth/providers/local-userpass/register",
                json: #"{"email":"\#(email)","password":"password1"}"#)
            #expect(r.status == 201)
            emails.append(email)
        }
        process.process.signal(SIGKILL)
        try await process.process.waitForExit()
        return (dir + "/data", emails)
    }

    /// A copy of `dir` with `damage` done to it.
    static func copy(_ dir: String, _ damage: (String) throws -> Void) throws -> String {
        let copy = try Binary.temporaryDirectory() + "/data"
        try FileManager.default.copyItem(atPath: dir, toPath: copy)
        try damage(copy)
        return copy
    }

    static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    static func contents(_ dir: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] {
            files[name] = FileManager.default.contents(atPath: dir + "/" + name)
        }
        return files
    }

    @Test(.timeLimit(.minutes(3)))
    func aDamagedLogOrALostFileIsExit78NamingItAndNothingChanges() async throws {
        let (crashed, _) = try await Self.crashedDataDirectory(users: 30)
        let wal = try #require(FileManager.default.contents(atPath: crashed + "/authsh.sqlite-wal"), "no log after the kill")
        #expect(wal.count > 32 + 4 * Self.frameSize, "the log holds \(wal.count) bytes")

        let cases: [(name: String, damage: (String) throws -> Void, says: [String])] = [
            (
                "the log's header", { try Self.overwrite($0 + "/authsh.sqlite-wal", at: 12, with: [0xde, 0xad]) },
                ["authsh.sqlite-wal", "damaged", "header"]
            ),
            (
                "a page in the middle of the log",
                { try Self.overwrite($0 + "/authsh.sqlite-wal", at: 32 + Self.frameSize + 24 + 100, with: [0xde, 0xad, 0xbe, 0xef]) },
                ["authsh.sqlite-wal", "damaged", "frame 2 of"]
            ),
            (
                "the database file removed", { try FileManager.default.removeItem(atPath: $0 + "/authsh.sqlite") },
                ["authsh.sqlite is missing", "authsh.sqlite-wal"]
            ),
            (
                "the database file not a database",
                { dir in
                    _ = try? FileManager.default.removeItem(atPath: dir + "/authsh.sqlite-wal")
                    _ = try? FileManager.default.removeItem(atPath: dir + "/authsh.sqlite-shm")
                    try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: dir + "/authsh.sqlite"))
                }, ["authsh.sqlite", "not a database"]
            ),
        ]
        for c in cases {
            let dir = try Self.copy(crashed, c.damage)
            let before = Self.contents(dir)
            let run = try await Binary.run(["serve", "--port", "0", "--data", dir])
            #expect(run.status == 78, "\(c.name): exit \(run.status): \(run.stderr.suffix(500))")
            for phrase in c.says + [dir] {
                #expect(run.stderr.contains(phrase), "\(c.name): the message does not say \(phrase): \(run.stderr.suffix(800))")
            }
            #expect(Self.contents(dir) == before, "\(c.name): the data directory was changed")
        }
    }

    /// What a crash leaves (its last transaction cut off) starts, with everything before it.
    @Test(.timeLimit(.minutes(3)))
    func aLogCutOffAtItsEndStarts() async throws {
        let (crashed, emails) = try await Self.crashedDataDirectory(users: 10)
        let dir = try Self.copy(crashed) { dir in
            let wal = dir + "/authsh.sqlite-wal"
            let size = try #require(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
            #expect(truncate(wal, off_t(size - Self.frameSize / 2)) == 0)
        }
        let process = try await ServerProcess(["--data", dir, "--config", crashed + "/../config.json"], examplePlugins: false)
        let server = JSONHTTP(origin: process.origin)
        // The last registration may have been cut off with the log; the others are there.
        for email in emails.dropLast() {
            #expect(try await server.emailLogin(email, "password1").status == 200, "\(email)")
        }
    }
}
