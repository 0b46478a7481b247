// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The mail queue. One area of ``AuthStore``.
public protocol MailQueueStore: Sendable {
    func enqueueMail(_ mail: QueuedMail) async throws
    /// Leases up to `limit` queued mails due at `now` until `leaseUntil` (each counts an
    /// attempt); a mail leased by one caller is not given to another until its lease ends.
    func leaseDueMail(now: Int64, leaseUntil: Int64, limit: Int) async throws -> [QueuedMail]
    /// Leases one queued mail, as ``leaseDueMail(now:leaseUntil:limit:)`` does, whatever its time.
    func leaseMail(id: String, now: Int64, leaseUntil: Int64) async throws -> QueuedMail?
    /// Marks it delivered or given up (`state`), erasing its content, if lease `attempt` (the
    /// `attempts` its lease gave) is still its latest: a sender whose lease ran out and was
    /// taken by another changes nothing. True when it did.
    @discardableResult
    func finishMail(id: String, attempt: Int, state: QueuedMail.State, error: String?, at time: Int64) async throws -> Bool
    /// Schedules another attempt at `next`, under the same rule as ``finishMail(id:attempt:state:error:at:)``.
    @discardableResult
    func retryMail(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool
    func queuedMail(id: String) async throws -> QueuedMail?
    /// How many mails wait for delivery, of every app.
    func queuedMailCount() async throws -> Int
    /// Deletes the mails delivered or given up before `time`; returns how many.
    func deleteFinishedMail(before time: Int64) async throws -> Int
}
