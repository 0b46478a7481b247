// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Read-only connections to one database file, lent to one caller at a time.
///
/// A read takes an idle connection (opening one when none is idle), runs on the caller's
/// thread, and gives it back; taking and giving back are one uncontended lock each. The pool
/// keeps at most `capacity` idle connections and closes any beyond that, so a burst of
/// concurrent reads does not leave file handles behind. In WAL mode readers never wait for the
/// writer, and each sees every transaction committed before its read began, by this process or
/// another.
package final class SQLiteReadPool: Sendable {
    private let path: String
    private let capacity: Int
    private let idle = Mutex<[SQLiteConnection]>([])

    package init(path: String, capacity: Int) {
        self.path = path
        self.capacity = capacity
    }

    /// Runs `body` with a connection that no one else uses until it returns.
    package func withConnection<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? SQLiteConnection(path: path, readOnly: true)
        defer {
            idle.withLock { connections in
                if connections.count < capacity { connections.append(connection) }
            }
        }
        return try await body(connection)
    }

    /// How many connections are idle (for tests).
    package var idleCount: Int { idle.withLock { $0.count } }
}
