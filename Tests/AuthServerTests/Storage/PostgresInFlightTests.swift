// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Logging
import PostgresNIO
import Synchronization
import TestSupport
import Testing

/// Operations in flight when PostgreSQL dies end, as unavailable, and the pool serves again
/// once it is back. (postgres-nio's `withTransaction` sent `ROLLBACK` on the dead connection
/// and waited for ever: the request never answered and its connection stayed leased.)
@Suite(.timeLimit(.minutes(5))) struct PostgresInFlightTests {
    @Test func operationsInFlightWhenTheDatabaseDiesEndAndThePoolRecovers() async throws {
        let cluster = try await PostgresCluster.makePrivate()
        let name = try await cluster.makeDatabase()
        var config = ServerConfiguration()
        config.database = .postgres(
            try PostgresDatabase(
                url: cluster.url(database: name) + "&pool=4", key: "database",
                passwordAllowed: false, environment: [:]))
        let store = try #require(try await openStore(config, serving: true) as? PostgresStore)
        defer { store.close() }
        let engine = store.engine.base
        let sleep = SQL("SELECT pg_sleep(600)", prepared: false)

        // An operation runs on its connection's event loop, where a check that the connection
        // is open and the statement sent after it have nothing in between.
        #expect(try await engine.write("where") { $0.connection.eventLoop.inEventLoop })
        #expect(try await engine.read("where") { $0.connection.eventLoop.inEventLoop })

        // Two transactions and two plain reads, each in a statement when PostgreSQL stops.
        // Unstructured, so that an operation that never ends fails the test instead of hanging it.
        let ended = Outcomes()
        for i in 0..<4 {
            Task {
                let outcome: String
                do {
                    if i < 2 {
                        try await engine.write("write \(i)") { try await $0.run(sleep, []) }
                    } else {
                        try await engine.read("read \(i)") { try await $0.run(sleep, []) }
                    }
                    outcome = "answered"
                } catch let error as StoreError {
                    outcome = error.code == .unavailable ? "unavailable" : "\(error)"
                } catch {
                    outcome = "\(error)"
                }
                ended.list.withLock { $0.append(outcome) }
            }
        }
        let observer = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: cluster.socketPath, username: "authsh", password: nil, database: "postgres"),
            id: 1, logger: Logger(label: "in-flight-test"))
        var sleeping = 0
        for _ in 0..<600 where sleeping < 4 {
            let rows = try await observer.query(
                PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM pg_stat_activity WHERE datname = '\(name)' AND query LIKE 'SELECT pg_sleep%'"),
                logger: observer.logger)
            for try await row in rows { sleeping = try row.decode(Int.self) }
            if sleeping < 4 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(sleeping == 4)
        try await cluster.stopImmediately()
        try? await observer.close()

        // Each ends within moments of the connection's close; 60 s is a bound for a busy
        // machine, not a guess at how soon.
        for _ in 0..<600 where ended.list.withLock({ $0.count }) < 4 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(ended.list.withLock { $0 } == ["unavailable", "unavailable", "unavailable", "unavailable"])

        // Back: all four connections of the pool serve at once (none is held by a lost operation).
        try await cluster.start()
        var served = 0
        for _ in 0..<60 where served < 4 {
            served = await withTaskGroup(of: Bool.self) { group in
                for i in 0..<4 {
                    group.addTask {
                        (try? await engine.write("again \(i)") { try await $0.run(SQL("SELECT pg_sleep(1)", prepared: false), []) }) != nil
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            if served < 4 { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(served == 4)
    }

    private final class Outcomes: Sendable {
        let list = Mutex<[String]>([])
    }
}
