// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// A task executor that runs its jobs on one NIO event loop: the loop of a PostgreSQL
/// connection, so that what an operation does on the connection happens on the thread that
/// owns it (``PostgresLease`` says why that matters).
package final class EventLoopExecutor: TaskExecutor {
    package let loop: any EventLoop

    package init(_ loop: any EventLoop) { self.loop = loop }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
