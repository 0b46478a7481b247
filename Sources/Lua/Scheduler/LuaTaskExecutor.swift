// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import Synchronization

/// The executor the scheduler's async operations run on: a few threads of its own.
///
/// `LuaState.run` blocks its calling thread until the Lua code finishes. If that thread
/// belonged to Swift's cooperative pool (an async test, a server handler) and the awaited
/// operations needed the same pool, two blocked runs on a 2-core machine would deadlock.
/// Running the operations here keeps them independent of whoever is blocked in `run`.
///
/// Its one rule: no Lua run ever blocks these threads (they run the async Swift work Lua waits
/// for, which awaits I/O), so every state of the process (the REPL's, every plugin's) shares
/// them without one waiting for another. Two threads: a synchronous step of one operation
/// (decoding a large answer) does not hold up the others, and more would only add switches
/// on the 2-core machines this is measured on.
final class LuaTaskExecutor: TaskExecutor {
    static let shared = LuaTaskExecutor(threads: 2)

    private let jobs = Mutex<Queue>(Queue())
    private let available = DispatchSemaphore(value: 0)

    private init(threads: Int) {
        for _ in 0..<threads {
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            pthread_create(
                &thread, nil,
                { context in
                    let executor = Unmanaged<LuaTaskExecutor>.fromOpaque(context!).takeRetainedValue()
                    executor.work()
                    return nil
                }, context)
            pthread_detach(thread)
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.push(unowned) }
        available.signal()
    }

    private func work() -> Never {
        while true {
            available.wait()
            let job = jobs.withLock { $0.pop() }
            job?.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A FIFO of jobs with O(1) push and pop.
struct Queue: Sendable {
    private var items: [UnownedJob] = []
    private var head = 0
    mutating func push(_ job: UnownedJob) { items.append(job) }
    mutating func pop() -> UnownedJob? {
        guard head < items.count else { return nil }
        let job = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return job
    }
}
