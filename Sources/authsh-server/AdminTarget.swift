// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthServer
import Hummingbird
import Synchronization

/// Where `authsh admin` acts: a running server's admin API (`--server`, key from
/// `AUTHSH_ADMIN_KEY`), or a database directly (`--data`, `--database`, `--config`).
///
/// Directly, the command starts the server's code in this process (its admin API alone, with
/// no background work: `adminOnly`) on a loopback port with a key made for this run (named `authsh-admin`, which the audit log records as the actor) and
/// uses the same admin API: one implementation of every operation, whichever way it is reached.
enum AdminTarget {
    /// The key's name for direct access, as the audit log shows it (`admin:authsh-admin`).
    static let localKeyName = "authsh-admin"

    /// Runs `body` with a client of the server `configuration` describes, started here, and
    /// stops that server once `body` returns.
    static func withLocalServer<T: Sendable>(
        _ configuration: ServerConfiguration, app: String,
        _ body: @escaping @Sendable (AdminClient) async throws -> T
    ) async throws -> T {
        var config = configuration
        let key = AdminKeys.randomKey()
        config.adminKeys = try AdminKeys([(name: localKeyName, key: key)])
        config.host = "127.0.0.1"
        config.port = 0
        config.dev = false
        config.metricsPort = nil
        config.adminOnly = true
        let origin = Mutex<String?>(nil)
        let started = AsyncStream<Void>.makeStream()
        let application = try await buildApplication(
            config,
            onListening: { host, port in
                origin.withLock { $0 = "http://\(host):\(port)" }
                started.continuation.yield()
                started.continuation.finish()
            })
        let running = Task { try await application.run() }
        defer { running.cancel() }
        for await _ in started.stream { break }
        guard let server = origin.withLock({ $0 }) else { throw AdminError("the local server did not start") }
        let result = try await body(AdminClient(server: server, key: key, app: app))
        running.cancel()
        _ = await running.result
        return result
    }

    struct AdminError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
