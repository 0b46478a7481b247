// SPDX-License-Identifier: Apache-2.0
import Logging
import Synchronization
import Testing

@testable import AuthServer

/// A queue worker with a concurrency of N runs N attempts at once, each job leased alone just
/// before its attempt (the trigger runner's four: one at a time, its commits bounded
/// PostgreSQL's throughput below a login rate), and never more than N.
@Suite(.timeLimit(.minutes(1))) struct QueueWorkerConcurrencyTests {
    struct Job: QueuedJob {
        var id: String
        var attempts = 1
        var createdAt: Int64 = 0
    }

    /// Ten jobs, and attempts that each wait until three are under way: with a concurrency of
    /// three every job is done; one at a time, the first attempt would wait forever.
    @Test func attemptsRunUpToTheConcurrencyAtOnce() async throws {
        let queue = Mutex((0..<10).map { Job(id: "job-\($0)") })
        let done = Mutex<[String]>([])
        let inFlight = Mutex((now: 0, most: 0, started: 0))
        let rows = QueueWorker<Job>.Rows(
            leaseDue: { _, _ in queue.withLock { $0.isEmpty ? nil : $0.removeFirst() } },
            lease: { _, _, _ in nil },
            finish: { job, _, _, _ in done.withLock { $0.append(job.id) } },
            retry: { _, _, _ in })
        let worker = QueueWorker<Job>(
            "test", rows: rows, clock: ServerClock(), policy: RetryPolicy(), logger: Logger(label: "test"), concurrency: 3,
            work: { _ in
                let started = inFlight.withLock { s -> Int in
                    s.now += 1
                    s.started += 1
                    s.most = max(s.most, s.now)
                    return s.started
                }
                // The first three wait for each other (the last jobs, fewer than three, do not).
                if started <= 3 {
                    while inFlight.withLock({ $0.started < 3 }) { await Task.yield() }
                }
                inFlight.withLock { $0.now -= 1 }
                return .done
            })
        await worker.workDue()
        #expect(done.withLock { $0.count } == 10)
        #expect(inFlight.withLock { $0.most } == 3, "never more than the concurrency")
    }
}
