import AuthProtocol
import AuthServer
import Foundation
import Testing

/// The database holds signing keys and password hashes: only its owner may read it, whether
/// or not the data directory existed before.
@Suite struct DataFileTests {
    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test(arguments: [true, false])
    func theDataDirectoryAndDatabaseArePrivate(existed: Bool) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("authsh-modes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        if existed {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            _ = FileManager.default.createFile(atPath: dir + "/authsh.sqlite", contents: nil, attributes: [.posixPermissions: 0o644])
        }
        try await TestServer.run(TestServer.configuration(database: .directory(dir))) { c in
            #expect(try await c.anonymous().status == 200)
            let directory = try Self.mode(dir)
            #expect(directory == 0o700)
            for file in ["authsh.sqlite", "authsh.sqlite-wal", "authsh.sqlite-shm"] {
                let mode = try Self.mode(dir + "/" + file)
                #expect(mode == 0o600, "\(file)")
            }
        }
    }
}
