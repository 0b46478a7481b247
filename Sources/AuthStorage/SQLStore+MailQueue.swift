// SPDX-License-Identifier: Apache-2.0
/// The mail queue: what every instance delivers from, each mail leased by one at a time.
extension SQLStore {
    public func enqueueMail(_ mail: QueuedMail) async throws {
        try await engine.write("queue mail") { r in try await r.run(MailQueueTable.insert, MailQueueTable.insertArguments(mail)) }
    }

    public func leaseDueMail(now: Int64, leaseUntil: Int64, limit: Int) async throws -> [QueuedMail] {
        try await leaseDue(MailQueueTable.queue, now: now, leaseUntil: leaseUntil, limit: limit, QueuedMail.self)
    }

    public func leaseMail(id: String, now: Int64, leaseUntil: Int64) async throws -> QueuedMail? {
        try await lease(MailQueueTable.queue, id: id, now: now, leaseUntil: leaseUntil, QueuedMail.self)
    }

    @discardableResult
    public func finishMail(id: String, attempt: Int, state: QueuedMail.State, error: String?, at time: Int64) async throws -> Bool {
        try await finish(MailQueueTable.queue, id: id, attempt: attempt, state: state.rawValue, error: error, at: time)
    }

    @discardableResult
    public func retryMail(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool {
        try await retry(MailQueueTable.queue, id: id, attempt: attempt, error: error, next: next)
    }

    public func queuedMail(id: String) async throws -> QueuedMail? {
        try await engine.read("read mail") { r in try await r.first(MailQueueTable.select, [.text(id)], MailQueueTable.mail) }
    }

    public func queuedMailCount() async throws -> Int {
        try await engine.read("count mail") { r in Int(try await r.first(MailQueueTable.queuedCount, []) { try $0.int64("queued") } ?? 0) }
    }

    public func deleteFinishedMail(before time: Int64) async throws -> Int {
        try await engine.write("delete old mail") { r in try await r.count(MailQueueTable.queue.deleteFinished, [.integer(time)]) }
    }
}
