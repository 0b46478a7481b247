// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Testing

/// The shared clock of database lease deadlines: a wait ends at its deadline, and a cancelled
/// one ends at once (a cancelled `Task.sleep` would stay until its deadline).
@Suite(.timeLimit(.minutes(5))) struct DeadlineWatchTests {
    @Test(.timeLimit(.minutes(1)))
    func aWaitEndsAtItsDeadlineAndACancelledOneAtOnce() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(20))
        let start = ContinuousClock.now
        await watch.wait(until: start + .milliseconds(200))
        #expect(start.duration(to: .now) >= .milliseconds(200))
        // A thousand waits for an hour, cancelled: all of them end (the time limit would stop a
        // test whose waits outlived their cancellation).
        let waits = (0..<1000).map { _ in Task { await watch.wait(until: .now + .seconds(3600)) } }
        for wait in waits { wait.cancel() }
        for wait in waits { await wait.value }
        // Cancelled before it began: it ends too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await watch.wait(until: .now + .seconds(3600))
        }
        await early.value
    }
}
