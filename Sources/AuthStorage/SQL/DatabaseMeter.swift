// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// How much a store uses its database, for `/metrics`: operations under way (each holds a
/// connection, or waits for one) and operations since start, by kind, and how many
/// connections the engine may hold at once. Atomic counters: a few nanoseconds an operation.
package final class DatabaseMeter: Sendable {
    package enum Kind: String, CaseIterable, Sendable {
        /// Reads outside a transaction and read snapshots.
        case read
        /// Write transactions.
        case write
    }

    /// Connections the engine may hold at once.
    package let poolSize: Int
    private let readsInFlight = Atomic<Int>(0)
    private let writesInFlight = Atomic<Int>(0)
    private let reads = Atomic<Int>(0)
    private let writes = Atomic<Int>(0)

    package init(poolSize: Int) {
        self.poolSize = poolSize
    }

    package func inFlight(_ kind: Kind) -> Int {
        kind == .read ? readsInFlight.load(ordering: .relaxed) : writesInFlight.load(ordering: .relaxed)
    }

    package func total(_ kind: Kind) -> Int {
        kind == .read ? reads.load(ordering: .relaxed) : writes.load(ordering: .relaxed)
    }

    /// Runs `body` as one operation of `kind`.
    package func measure<T>(_ kind: Kind, _ body: () async throws -> T) async rethrows -> T {
        switch kind {
        case .read:
            reads.add(1, ordering: .relaxed)
            readsInFlight.add(1, ordering: .relaxed)
        case .write:
            writes.add(1, ordering: .relaxed)
            writesInFlight.add(1, ordering: .relaxed)
        }
        defer {
            switch kind {
            case .read: readsInFlight.subtract(1, ordering: .relaxed)
            case .write: writesInFlight.subtract(1, ordering: .relaxed)
            }
        }
        return try await body()
    }
}

/// A store that keeps a ``DatabaseMeter``.
package protocol MeteredStore {
    var meter: DatabaseMeter { get }
    /// Write transactions committed since the store opened (``SQLEngine/transactionsCommitted``).
    var transactionsCommitted: Int { get }
}

/// An engine whose every operation a ``DatabaseMeter`` counts; ``SQLStore`` reaches its
/// engine only through one.
package struct MeteredEngine<Base: SQLEngine>: Sendable {
    package let base: Base
    package let meter: DatabaseMeter

    package init(_ base: Base) {
        self.base = base
        meter = DatabaseMeter(poolSize: base.poolSize)
    }

    package func read<T: Sendable>(_ operation: String, _ body: (Base.Runner) async throws -> T) async throws -> T {
        try await meter.measure(.read) { try await base.read(operation, body) }
    }

    package func snapshot<T: Sendable>(_ operation: String, _ body: (Base.Runner) async throws -> T) async throws -> T {
        try await meter.measure(.read) { try await base.snapshot(operation, body) }
    }

    package func write<T: Sendable>(_ operation: String, _ body: (Base.Runner) async throws -> T) async throws -> T {
        try await meter.measure(.write) { try await base.write(operation, body) }
    }

    package func append(_ operation: String, _ sql: SQL, _ arguments: [SQLValue]) async throws {
        try await meter.measure(.write) { try await base.append(operation, sql, arguments) }
    }
}
