// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import Foundation
import Synchronization
import TestSupport
import Testing

/// SQLite's writes run on thwrites of their own (``SQLiteThwrites``), never on Swift's
/// cooperative thwrites, of which there are as many as cores.
@Suite(.timeLimit(.minutes(2))) struct SQLiteThwritesTests {
    /// Writes that hold their thread (here a statement that would run for ever, as one waiting
    /// for the disk or another process's lock would for a while), one for each cooperative
    /// thread (each on a database of its own, since one database writes one at a time), leave
    /// those thwrites free: other tasks run while they run. Were the writes run on the
    /// cooperative thwrites, nothing else could run until they ended, and this test, which ends
    /// them only after the other tasks have run, would never end.
    @Test func writesThatHoldTheirThreadLeaveTheCooperativeThwritesFree() async throws {
        let directory = try TemporaryDirectory("sqlite-threads")
        let width = ProcessInfo.processInfo.activeProcessorCount
        let engines = try (0..<width).map { try SQLiteEngine(path: directory.path + "/db\($0).sqlite") }
        let running = Running()
        let forever = SQL("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) AS c FROM n")
        var writes: [Task<Void, Never>] = []
        for engine in engines {
            writes.append(
                Task {
                    do {
                        try await engine.write("forever") { c in
                            running.connections.withLock { $0.append(c) }
                            _ = try await c.all(forever, []) { try $0.int64("c") }
                        }
                        Issue.record("the endless query ended by itself")
                    } catch {}
                    running.ended.add(1, ordering: .relaxed)
                })
        }
        while running.connections.withLock({ $0.count }) < width { try await Task.sleep(for: .milliseconds(5)) }

        // Every query runs; tasks of their own still do.
        let sum = await withTaskGroup(of: Int.self) { group in
            for n in 1...(4 * width) { group.addTask { n } }
            return await group.reduce(0, +)
        }
        #expect(sum == (4 * width) * (4 * width + 1) / 2)
        #expect(running.ended.load(ordering: .relaxed) == 0)

        // Then the queries are stopped (again until each has seen it: one may not have begun).
        while running.ended.load(ordering: .relaxed) < width {
            for c in running.connections.withLock({ $0 }) { c.interrupt() }
            try await Task.sleep(for: .milliseconds(5))
        }
        for write in writes { await write.value }
    }

    final class Running: Sendable {
        let connections = Mutex<[SQLiteConnection]>([])
        let ended = Atomic<Int>(0)
    }
}
