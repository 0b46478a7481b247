// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Trigger runs: the queue of ``TriggerRunner`` (its rules as the mail queue's). One area of ``AuthStore``.
public protocol TriggerRunStore: Sendable {
    func leaseDueTriggerRun(now: Int64, leaseUntil: Int64) async throws -> TriggerRun?
    func leaseTriggerRun(id: String, now: Int64, leaseUntil: Int64) async throws -> TriggerRun?
    /// Marks it done or given up, if lease `attempt` is still its latest; true when it did.
    @discardableResult
    func finishTriggerRun(id: String, attempt: Int, state: TriggerRun.State, error: String?, at time: Int64) async throws -> Bool
    @discardableResult
    func retryTriggerRun(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool
    /// The app's runs, newest first, all or those in `state`.
    func triggerRuns(app: String, state: TriggerRun.State?, limit: Int) async throws -> [TriggerRun]
    /// How many of the app's runs wait.
    func queuedTriggerRunCount(app: String) async throws -> Int
    /// Deletes the runs finished before `time`; returns how many.
    func deleteFinishedTriggerRuns(before time: Int64) async throws -> Int
}
