import AuthServer
import Hummingbird
import Logging
import Synchronization

/// The server `authsh` starts in-process when no `--server` is named: AuthServer in dev mode on
/// 127.0.0.1 (an ephemeral port), its database under `DATA/server`, plugins from `--plugins`
/// (default `./plugins` when it exists). It starts on the first request a script makes and
/// stops with the process.
enum EmbeddedServer {
    /// A function that starts the server and returns its origin. `adminKey` opens its admin
    /// API to this process's scripts (`auth.admin()`), under the name `embedded`.
    static func starter(dataDirectory: String, plugins: String?, adminKey: AdminKey) -> @Sendable () async throws -> String {
        {
            var config = ServerConfiguration()
            config.adminKeys = try AdminKeys([(name: "embedded", key: adminKey.value)])
            config.dev = true
            config.host = "127.0.0.1"
            config.port = 0
            // The playground's `local` app keeps one account per email (identity-providers.md section 5).
            config.apps = config.apps.map { var app = $0; app.oneAccountPerEmail = true; return app }
            config.database = .directory(dataDirectory + "/server")
            if let plugins {
                config.pluginsDirectory = plugins
                config.pluginsDirectoryRequired = true
            }
            var logger = Logger(label: "authsh.embedded", factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = .warning
            config.logger = logger
            let listening = AsyncStream<Int>.makeStream()
            let app = try await buildApplication(config) { _, port in
                listening.continuation.yield(port)
                listening.continuation.finish()
            }
            let running = Task {
                defer { listening.continuation.finish() }
                try await app.runService(gracefulShutdownSignals: [])
            }
            for await port in listening.stream { return "http://127.0.0.1:\(port)" }
            try await running.value  // it stopped before listening: its error says why
            throw EmbeddedServerError(message: "it stopped before listening")
        }
    }
}

extension EmbeddedServer {
    /// A key for the embedded server's admin API, known only to this process, made the first
    /// time the server starts or a script asks for it (making it at start-up cost every run of
    /// `authsh` a tenth of a millisecond).
    final class AdminKey: Sendable {
        private let key = Mutex<String?>(nil)

        var value: String {
            key.withLock { key in
                if let key { return key }
                let made = AdminKeys.randomKey()
                key = made
                return made
            }
        }
    }
}

struct EmbeddedServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
