// SPDX-License-Identifier: Apache-2.0
/// A row of a durable work queue, read from the columns its ``QueueStatements`` return.
package protocol QueueRecord: Sendable {
    init<Row: SQLRow>(row: Row) throws
}

/// The operations every durable queue shares (``QueueStatements``): leasing, finishing and
/// retrying, in one write each.
extension SQLStore {
    package func leaseDue<Job: QueueRecord>(_ queue: QueueStatements, now: Int64, leaseUntil: Int64, limit: Int, _: Job.Type = Job.self)
        async throws -> [Job]
    {
        try await engine.write("lease \(queue.name)") { r in
            var leased: [Job] = []
            for id in try await r.all(queue.due, [.integer(now), .integer(now), .integer(limit)], { try $0.text("id") }) {
                // Another instance may have leased it since the read: the UPDATE checks again.
                if let job = try await r.first(queue.lease, [.integer(leaseUntil), .text(id), .integer(now)], { try Job(row: $0) }) {
                    leased.append(job)
                }
            }
            return leased
        }
    }

    package func lease<Job: QueueRecord>(_ queue: QueueStatements, id: String, now: Int64, leaseUntil: Int64, _: Job.Type = Job.self)
        async throws -> Job?
    {
        try await engine.write("lease \(queue.name)") { r in
            try await r.first(queue.lease, [.integer(leaseUntil), .text(id), .integer(now)]) { try Job(row: $0) }
        }
    }

    package func finish(_ queue: QueueStatements, id: String, attempt: Int, state: String, error: String?, at time: Int64) async throws -> Bool {
        try await engine.write("finish \(queue.name)") { r in
            try await r.count(queue.finish, [.text(state), .text(error), .integer(time), .text(id), .integer(Int64(attempt))]) > 0
        }
    }

    package func retry(_ queue: QueueStatements, id: String, attempt: Int, error: String, next: Int64) async throws -> Bool {
        try await engine.write("retry \(queue.name)") { r in
            try await r.count(queue.retry, [.integer(next), .text(error), .text(id), .integer(Int64(attempt))]) > 0
        }
    }
}
