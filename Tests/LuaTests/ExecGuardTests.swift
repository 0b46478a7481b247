// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Lua
import Synchronization
import Testing

/// The programs os.execute and io.popen run hold none of the host's sockets, even one another
/// thread opens while the program starts (as SwiftNIO's threads open the client's connections).
@Suite(.serialized, .timeLimit(.minutes(5))) struct ExecGuardTests {
    /// A thread that opens and closes sockets without close-on-exec, as fast as it can, and
    /// remembers their inodes.
    final class SocketChurn: Sendable {
        let inodes = Mutex<Set<UInt64>>([])
        let running = Atomic<Bool>(true)

        func start() {
            Thread.detachNewThread { [self] in
                while running.load(ordering: .relaxed) {
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    var status = stat()
                    if fd >= 0, fstat(fd, &status) == 0 { inodes.withLock { _ = $0.insert(UInt64(status.st_ino)) } }
                    usleep(20)
                    close(fd)
                }
            }
        }

        /// Inodes of `listing` (`ls -l /proc/self/fd`) that are sockets of this thread's.
        func held(in listing: String) -> [UInt64] {
            let listed = listing.components(separatedBy: "socket:[").dropFirst().compactMap { UInt64($0.prefix { $0.isNumber }) }
            return inodes.withLock { mine in listed.filter { mine.contains($0) } }
        }
    }

    @Test(arguments: ["io.popen", "os.execute"])
    func aSocketOpenedWhileAProgramStartsIsNotInherited(_ function: String) throws {
        let lua = try LuaState()
        let file = Scratch.path("execguard")
        defer { unlink(file) }
        let churn = SocketChurn()
        churn.start()
        defer { churn.running.store(false, ordering: .relaxed) }
        let run =
            function == "io.popen"
            ? #"local p = io.popen("ls -l /proc/self/fd"); local text = p:read("a"); assert(p:close()); return text"#
            : #"assert(os.execute("ls -l /proc/self/fd > \#(file)")); local f = io.open("\#(file)"); local text = f:read("a"); f:close(); return text"#
        var leaks = 0, runs = 0
        for _ in 0..<150 {
            let listing = try #require(try lua.evaluate(run).first?.stringValue)
            #expect(listing.contains("/proc/") || listing.contains("pipe:") || listing.contains("/dev/"), "\(listing)")
            if !churn.held(in: listing).isEmpty { leaks += 1 }
            runs += 1
        }
        #expect(leaks == 0, "\(leaks) of \(runs) programs held a socket opened while they started")
    }
}
