// SPDX-License-Identifier: Apache-2.0
import AuthStorage
@testable import AuthServer
import Logging
import TestSupport

extension PostgresCluster {
    /// A store on a new database of this cluster.
    func makeStore() async throws -> PostgresStore {
        var logger = Logger(label: "test.postgres")
        logger.logLevel = .critical
        // A bound for a failing test, not a wait: a fresh clone's first burst once held 24
        // racing leases past the server's 5 s.
        return try await PostgresStore(
            configuration: configuration(database: try await makeDatabase()), logger: logger, leaseDeadline: .seconds(60))
    }
}
