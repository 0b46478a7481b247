// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOPosix

/// The threads SQLite's writes run on: a task executor over a `NIOThreadPool` of its own,
/// so that a write that waits (for the disk, a checkpoint, or another process's lock for up
/// to the busy timeout) blocks one of these threads and never one of Swift's cooperative
/// threads, of which there are as many as cores (two on a small machine) and which every
/// request's other work needs.
///
/// ``SQLiteEngine`` runs each write under `withTaskExecutorPreference(SQLiteThreads.shared)`: the
/// write's nonisolated async code (its statements, the group commit's turn) then runs here, and
/// the caller continues on its own executor when it returns. Reads do not: the two hops cost a
/// refresh a third of its speed, and in WAL mode a read waits for no lock.
package final class SQLiteThreads: TaskExecutor {
    private let pool: NIOThreadPool

    /// One pool for the process: threads for the writers of several databases (a server has
    /// one; tests open many) to block at once; the writes that queue for a writer's turn
    /// suspend, not block, so they hold no thread while they wait.
    package static let shared = SQLiteThreads(threads: max(4, System.coreCount * 2))

    /// A pool of `threads` threads, started now and never shut down (they are the process's).
    package init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The pool runs the item on one of its threads; were it shut down it would run it at
        // once, here, with `.cancelled`: a job runs either way, so no task is left suspended.
        pool.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
