// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Synchronization

/// A task executor with threads of its own: tasks that prefer it
/// (`withTaskExecutorPreference`) run there, not on Swift's cooperative threads. A test whose
/// timing matters (a load it drives while a database restarts) stays on time however long the
/// other tests of the process hold the cooperative threads with blocking work (an SQLite write
/// waiting for a lock, a child process's exit).
public final class ThreadExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    /// Starts `threads` threads; they live as long as the process.
    public init(threads: Int) {
        for _ in 0..<threads {
            Thread.detachNewThread { [self] in
                while true {
                    ready.wait()
                    guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}
