// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Glibc
import Testing

/// The disk under a SQLite database fills up, as it does in production: the request that
/// cannot be written answers 503 `ServiceUnavailable` with `Retry-After` (never a 500), the
/// server goes on serving what it can, and writes work again once space is freed. The disk is a
/// real one: a small tmpfs the test mounts (root only; elsewhere the test does not run).
@Suite(.timeLimit(.minutes(5))) struct DiskFullTests {
    /// Whether this process may mount a tmpfs (root outside a restricted container).
    static let canMount: Bool = {
        let dir = Scratch.path("mount-probe")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil,
            mount("tmpfs", dir, "tmpfs", 0, "size=1m") == 0
        else { return false }
        umount2(dir, Int32(MNT_DETACH))
        return true
    }()

    /// A fresh 8 MiB tmpfs mounted on a new temporary directory.
    static func mountTmpfs(_ name: String) throws -> String {
        let disk = Scratch.path(name)
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(mount("tmpfs", disk, "tmpfs", 0, "size=8m,mode=0755") == 0)
        return disk
    }

    static func unmount(_ disk: String) {
        umount2(disk, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(atPath: disk)
    }

    @Test(.enabled(if: Self.canMount, "mounting a tmpfs needs root"), .timeLimit(.minutes(2)))
    func aFullDiskIsA503AndWritesWorkOnceSpaceIsFreed() async throws {
        let disk = try Self.mountTmpfs("full")
        defer { Self.unmount(disk) }
        try await TestServer.run(TestServer.configuration(database: .directory(disk + "/data"))) { (c: Client) async throws in
            try await c.registerConfirmed("first@example.com")
            #expect(try await c.emailLogin("first@example.com", "password1").status == 200)
            // Fill the disk but for a few KiB.
            var fs = statvfs()
            #expect(statvfs(disk, &fs) == 0)
            let free = Int(fs.f_bavail) * Int(fs.f_frsize)
            let filler = disk + "/filler"
            #expect(FileManager.default.createFile(atPath: filler, contents: Data(count: max(0, free - 16 << 10))))
            var full: Reply?
            for n in 0..<2000 where full == nil {
                let r = try await c.userpass("register", ["email": .string("u\(n)@example.com"), "password": "password1"])
                if r.status != 201 { full = r }
            }
            let refused = try #require(full, "the disk never filled")
            #expect(refused.status == 503 && refused.code == "ServiceUnavailable" && refused.retryAfter != nil, "\(refused.body)")
            // What needs no write still works.
            #expect(try await c.call(.get, Routes.location("local")).status == 200)
            // Space freed: writes work again, and nothing written before was lost.
            try FileManager.default.removeItem(atPath: filler)
            #expect(try await c.userpass("register", ["email": "after@example.com", "password": "password1"]).status == 201)
            #expect(try await c.emailLogin("first@example.com", "password1").status == 200)
        }
    }

    /// A database on a file system that went read-only while the server was down (as ext4 does
    /// after an I/O error): the server does not start on it (SQLite would open it read-only in
    /// silence, and every write would then fail); the error names the file and why.
    @Test(.enabled(if: Self.canMount, "mounting a tmpfs needs root"), .timeLimit(.minutes(2)))
    func aReadOnlyFileSystemIsAConfigurationErrorNamingIt() async throws {
        let disk = try Self.mountTmpfs("ro")
        defer { Self.unmount(disk) }
        let configuration = TestServer.configuration(database: .directory(disk + "/data"))
        try await TestServer.run(configuration) { (c: Client) async throws in
            try await c.registerConfirmed("first@example.com")
        }
        // The server's files close when its last task lets the store go, which on a busy
        // machine can be a moment after it stopped: the remount is busy until then.
        var remounted = mount("tmpfs", disk, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=8m,mode=0755") == 0
        let deadline = ContinuousClock.now + .seconds(60)
        while !remounted && errno == EBUSY && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            remounted = mount("tmpfs", disk, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), "size=8m,mode=0755") == 0
        }
        #expect(remounted, "\(String(cString: strerror(errno)))")
        await #expect {
            try await buildApplication(configuration)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.key == "database" && error.reason.contains(disk + "/data/authsh.sqlite") && error.reason.contains("Read-only file system")
        }
    }
}
