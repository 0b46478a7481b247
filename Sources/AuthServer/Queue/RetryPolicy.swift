// SPDX-License-Identifier: Apache-2.0
/// When a durable queue's worker tries a job again, and when it stops (``QueueWorker``).
struct RetryPolicy: Sendable {
    /// Seconds before attempt 2, 3, ...; the last repeats.
    var retryDelays: [Int64] = [5, 30, 120, 600, 1800]
    /// Seconds after queueing when a job still not done is given up.
    var giveUpAfter: Int64 = 86_400
    /// How long a leased job is left to its instance (longer than one attempt can take).
    var lease: Int64 = 120
    /// How often the queue is read when nothing wakes the worker (other instances' jobs,
    /// retries coming due).
    var poll: Duration = .seconds(5)

    func delay(afterAttempt attempts: Int) -> Int64 {
        retryDelays.isEmpty ? 60 : retryDelays[min(max(attempts - 1, 0), retryDelays.count - 1)]
    }
}
