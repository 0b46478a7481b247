/// The mail queue: what every instance delivers from, each mail leased by one at a time.
extension SQLStore {
    public func enqueueMail(_ mail: QueuedMail) async throws {
        try await engine.write("queue mail") { r in try await r.run(MailQueueTable.insert, MailQueueTable.insertArguments(mail)) }
    }

    public func leaseDueMail(now: Int64, leaseUntil: Int64, limit: Int) async throws -> [QueuedMail] {
        try await engine.write("lease mail") { r in
            var leased: [QueuedMail] = []
            for id in try await r.all(MailQueueTable.due, [.integer(now), .integer(now), .integer(limit)], { try $0.text("id") }) {
                // Another instance may have leased it since the read: the UPDATE checks again.
                if let mail = try await r.first(MailQueueTable.lease, [.integer(leaseUntil), .text(id), .integer(now)], MailQueueTable.mail) {
                    leased.append(mail)
                }
            }
            return leased
        }
    }

    public func leaseMail(id: String, now: Int64, leaseUntil: Int64) async throws -> QueuedMail? {
        try await engine.write("lease mail") { r in
            try await r.first(MailQueueTable.lease, [.integer(leaseUntil), .text(id), .integer(now)], MailQueueTable.mail)
        }
    }

    @discardableResult
    public func finishMail(id: String, attempt: Int, state: QueuedMail.State, error: String?, at time: Int64) async throws -> Bool {
        try await engine.write("finish mail") { r in
            try await r.count(MailQueueTable.finish, [.text(state.rawValue), .text(error), .integer(time), .text(id), .integer(Int64(attempt))]) > 0
        }
    }

    @discardableResult
    public func retryMail(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool {
        try await engine.write("retry mail") { r in
            try await r.count(MailQueueTable.retry, [.integer(next), .text(error), .text(id), .integer(Int64(attempt))]) > 0
        }
    }

    public func queuedMail(id: String) async throws -> QueuedMail? {
        try await engine.read("read mail") { r in try await r.first(MailQueueTable.select, [.text(id)], MailQueueTable.mail) }
    }

    public func queuedMailCount() async throws -> Int {
        try await engine.read("count mail") { r in Int(try await r.first(MailQueueTable.queuedCount, []) { try $0.int64("queued") } ?? 0) }
    }

    public func deleteFinishedMail(before time: Int64) async throws -> Int {
        try await engine.write("delete old mail") { r in try await r.count(MailQueueTable.deleteFinished, [.integer(time)]) }
    }
}
