// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Testing

/// The queue workers' wake-up: a wait ended by a signal leaves nothing behind, so the next
/// wait waits; a cancelled wait ends at once (a server's shutdown waited out the poll's 5 s). (Its cancelled timer used to signal on its way out: every wait after the first
/// early wake-up returned at once, and the sender read the queue about 40,000 times a second
/// while a mail waited for its retry.)
@Suite(.timeLimit(.minutes(1))) struct WakeSignalTests {
    @Test func aSignalledWaitLeavesNoSignalBehind() async throws {
        let wake = WakeSignal()
        wake.signal()
        await wake.wait(timeout: .seconds(600))
        #expect(!wake.isPending)
        // Its timer, cancelled, has had every chance to signal (the old one did at once).
        for _ in 0..<100 where !wake.isPending { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!wake.isPending, "the cancelled timer signalled")
    }

    @Test func aWaitEndsAtItsTimeout() async {
        let wake = WakeSignal()
        await wake.wait(timeout: .milliseconds(10))
        #expect(!wake.isPending)
    }

    @Test func aCancelledWaitEndsWithoutItsTimeout() async {
        let wake = WakeSignal()
        let waiting = Task { await wake.wait(timeout: .seconds(600)) }
        waiting.cancel()
        // Bounded by the suite's minute: the old wait returned only after its 600 s.
        await waiting.value
    }
}
