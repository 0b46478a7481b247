// SPDX-License-Identifier: Apache-2.0
import Logging

/// A job of a durable queue as its worker sees it.
protocol QueuedJob: Sendable {
    var id: String { get }
    /// Counted when leased: the lease's attempt.
    var attempts: Int { get }
    var createdAt: Int64 { get }
}

/// Works a durable queue that every instance sharing the database reads (the mail queue, the
/// trigger runs): each job leased by one instance at a time, just before its attempt (a lease
/// taken for a batch would run out while the jobs before it ran, and another instance would
/// take it too); tried again with back-off after a temporary failure; given up after a
/// permanent one, or ``RetryPolicy/giveUpAfter`` seconds after it was queued, its reason kept.
///
/// A process that dies during an attempt leaves the job leased: once the lease ends it is
/// tried again (at least once, never lost). Woken when a job is queued here; reads the queue
/// every ``RetryPolicy/poll`` besides.
final class QueueWorker<Job: QueuedJob>: Sendable {
    /// What an attempt came to.
    enum Outcome: Sendable, Equatable {
        case done
        /// A failure worth another attempt, with its reason.
        case retry(String)
        /// A failure no attempt will cure, with its reason.
        case failed(String)
    }

    /// What the worker did with a job, for the queue's logs and metrics.
    enum Report: Sendable {
        case done
        case retried(String)
        case gaveUp(String)
    }

    /// The queue's rows, in the store.
    struct Rows: Sendable {
        /// Leases one job due at a time (arguments: now, lease end).
        var leaseDue: @Sendable (Int64, Int64) async throws -> Job?
        /// Leases job `id` whatever its time (arguments: id, now, lease end).
        var lease: @Sendable (String, Int64, Int64) async throws -> Job?
        /// Marks a job done (`failed` false) or given up, with its reason.
        var finish: @Sendable (Job, _ failed: Bool, _ reason: String?, _ at: Int64) async throws -> Void
        /// Schedules another attempt.
        var retry: @Sendable (Job, _ reason: String, _ next: Int64) async throws -> Void
    }

    let name: String
    let rows: Rows
    let clock: ServerClock
    let policy: RetryPolicy
    let logger: Logger
    /// How many attempts run at once (each job leased alone, just before its attempt, as
    /// several instances lease them); 1: one after another.
    let concurrency: Int
    private let work: @Sendable (Job) async -> Outcome
    private let report: @Sendable (Job, Report) -> Void
    private let wake = WakeSignal()

    init(
        _ name: String, rows: Rows, clock: ServerClock, policy: RetryPolicy, logger: Logger, concurrency: Int = 1,
        work: @escaping @Sendable (Job) async -> Outcome, report: @escaping @Sendable (Job, Report) -> Void = { _, _ in }
    ) {
        self.name = name
        self.concurrency = max(1, concurrency)
        self.rows = rows
        self.clock = clock
        self.policy = policy
        self.logger = logger
        self.work = work
        self.report = report
    }

    /// A job was queued by this process: the loop looks at the queue now.
    func signal() { wake.signal() }

    /// Works job `id` now, in the caller's task (a queue with no loop running: the dev outbox).
    func workNow(_ id: String) async {
        let now = clock.now
        do {
            if let job = try await rows.lease(id, now, now + policy.lease) { await attempt(job) }
        } catch {
            logger.error("\(name) queue unavailable", metadata: ["error": "\(error)"])
        }
    }

    /// Works the queue until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            await workDue()
            await wake.wait(timeout: policy.poll)
        }
    }

    /// Works every job due now, one lease at a time, up to ``concurrency`` attempts at once: a
    /// job is leased only when an attempt may start, so no lease waits for others to end.
    func workDue() async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            while !Task.isCancelled {
                if running == concurrency {
                    await group.next()
                    running -= 1
                }
                let now = clock.now
                let job: Job?
                do {
                    job = try await rows.leaseDue(now, now + policy.lease)
                } catch {
                    logger.error("\(name) queue unavailable", metadata: ["error": "\(error)"])
                    return
                }
                guard let job else { return }
                running += 1
                group.addTask { await self.attempt(job) }
            }
        }
    }

    /// One attempt of a leased job, and what it leaves in the queue.
    private func attempt(_ job: Job) async {
        let outcome = await work(job)
        let now = clock.now
        do {
            switch outcome {
            case .done:
                try await rows.finish(job, false, nil, now)
                report(job, .done)
            case .failed(let reason):
                try await rows.finish(job, true, reason, now)
                report(job, .gaveUp(reason))
            case .retry(let reason) where now - job.createdAt >= policy.giveUpAfter:
                let why = "gave up after \(job.attempts) attempts in \(policy.giveUpAfter) s: \(reason)"
                try await rows.finish(job, true, why, now)
                report(job, .gaveUp(why))
            case .retry(let reason):
                try await rows.retry(job, reason, now + policy.delay(afterAttempt: job.attempts))
                report(job, .retried(reason))
            }
        } catch {
            // The store failed: the lease runs out and the job is tried again.
            logger.error("\(name) queue unavailable", metadata: ["error": "\(error)"])
        }
    }
}
