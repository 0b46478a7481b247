// SPDX-License-Identifier: Apache-2.0
/// The trigger runs: the queue every instance runs authentication triggers from, each run
/// leased by one at a time (``QueueStatements``). Runs are queued by the writes of the changes
/// that cause them (``insertUser(_:events:)``, ``insertSession(_:events:)``,
/// ``deleteUser(id:app:events:)``).
extension SQLStore {
    public func leaseDueTriggerRun(now: Int64, leaseUntil: Int64) async throws -> TriggerRun? {
        try await leaseDue(TriggerRunsTable.queue, now: now, leaseUntil: leaseUntil, limit: 1, TriggerRun.self).first
    }

    public func leaseTriggerRun(id: String, now: Int64, leaseUntil: Int64) async throws -> TriggerRun? {
        try await lease(TriggerRunsTable.queue, id: id, now: now, leaseUntil: leaseUntil, TriggerRun.self)
    }

    @discardableResult
    public func finishTriggerRun(id: String, attempt: Int, state: TriggerRun.State, error: String?, at time: Int64) async throws -> Bool {
        try await finish(TriggerRunsTable.queue, id: id, attempt: attempt, state: state.rawValue, error: error, at: time)
    }

    @discardableResult
    public func retryTriggerRun(id: String, attempt: Int, error: String, next: Int64) async throws -> Bool {
        try await retry(TriggerRunsTable.queue, id: id, attempt: attempt, error: error, next: next)
    }

    public func triggerRuns(app: String, state: TriggerRun.State?, limit: Int) async throws -> [TriggerRun] {
        try await engine.read("read trigger runs") { r in
            if let state {
                return try await r.all(
                    TriggerRunsTable.recentInState, [.text(app), .text(state.rawValue), .integer(Int64(limit))], TriggerRunsTable.run)
            }
            return try await r.all(TriggerRunsTable.recent, [.text(app), .integer(Int64(limit))], TriggerRunsTable.run)
        }
    }

    public func queuedTriggerRunCount(app: String) async throws -> Int {
        try await engine.read("count trigger runs") { r in
            Int(try await r.first(TriggerRunsTable.queuedCount, [.text(app)]) { try $0.int64("queued") } ?? 0)
        }
    }

    public func deleteFinishedTriggerRuns(before time: Int64) async throws -> Int {
        try await engine.write("delete old trigger runs") { r in try await r.count(TriggerRunsTable.queue.deleteFinished, [.integer(time)]) }
    }
}
