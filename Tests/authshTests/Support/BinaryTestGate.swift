// SPDX-License-Identifier: Apache-2.0
import Testing

/// At most two of the built binary's tests run at once (`@Suite(.binary)`), however many the
/// test runner starts. Each one runs programs (servers under load, REPLs in tmux, scripts whose
/// embedded server starts); all of them at once on two cores starved the in-process servers of
/// the other targets, which run beside them in the same `swift test`. Two is what the suite ran
/// with when these tests blocked Swift's two cooperative threads while they waited.
struct BinaryTestGate: SuiteTrait, TestTrait, TestScoping {
    static let width = 2
    private static let slots = Slots(width)

    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // Each test case takes a slot; a suite or a test as a whole does not.
        guard testCase != nil else { return try await function() }
        await Self.slots.acquire()
        do {
            try await function()
        } catch {
            await Self.slots.release()
            throw error
        }
        await Self.slots.release()
    }

    /// A counting semaphore for tasks.
    actor Slots {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(_ count: Int) { free = count }

        func acquire() async {
            if free > 0 {
                free -= 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }
}

extension Trait where Self == BinaryTestGate {
    /// The suite's tests take turns with the other tests of the built binary (``BinaryTestGate``).
    static var binary: BinaryTestGate { BinaryTestGate() }
}
