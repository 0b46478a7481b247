// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Testing

/// The database holds signing keys and password hashes: only its owner may read it, whether
/// or not the data directory existed before.
@Suite(.timeLimit(.minutes(5))) struct DataFileTests {
    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: [true, false])
    func theDataDirectoryAndDatabaseArePrivate(existed: Bool) async throws {
        let dir = Scratch.path("modes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        if existed {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            _ = FileManager.default.createFile(atPath: dir + "/authsh.sqlite", contents: nil, attributes: [.posixPermissions: 0o644])
        }
        try await TestServer.run(TestServer.configuration(database: .directory(dir))) { c in
            #expect(try await c.anonymous().status == 200)
            let directory = try Self.mode(dir)
            // A directory authsh made is 0700; one that was there is left as it was.
            #expect(directory == (existed ? 0o755 : 0o700))
            for file in ["authsh.sqlite", "authsh.sqlite-wal", "authsh.sqlite-shm"] {
                let mode = try Self.mode(dir + "/" + file)
                #expect(mode == 0o600, "\(file)")
            }
        }
    }

    /// A database in a directory others can write to (a shared 1777 one, a group-writable one,
    /// one of another user) is refused with a message that names it, and the directory is left
    /// as it was: it used to be made 0700, taking a shared directory away from everyone else.
    @Test func aDirectoryOthersCanWriteToIsRefusedNotChanged() async throws {
        let base = Scratch.path("shared")
        defer { try? FileManager.default.removeItem(atPath: base) }
        var cases: [(mode: Int, owner: uid_t?, why: String)] = [(0o1777, nil, "written by other users"), (0o775, nil, "written by other users")]
        if geteuid() == 0 { cases.append((0o755, 65534, "another user")) }
        for (n, c) in cases.enumerated() {
            let dir = base + "/\(n)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            #expect(chmod(dir, mode_t(c.mode)) == 0)
            if let owner = c.owner { #expect(chown(dir, owner, 65534) == 0) }
            for database in [ServerConfiguration.Database.sqliteFile(dir + "/x.sqlite"), .directory(dir)] {
                await #expect { try await buildApplication(TestServer.configuration(database: database)) } throws: {
                    "\($0)".contains(dir) && "\($0)".contains(c.why)
                }
            }
            #expect(try Self.mode(dir) == c.mode, "the directory was changed")
            #expect(!FileManager.default.fileExists(atPath: dir + "/x.sqlite") && !FileManager.default.fileExists(atPath: dir + "/authsh.sqlite"))
        }
    }
}
