// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import AuthServer
import CommandSupport
import Dispatch
import Glibc
import Hummingbird
import Logging
import Synchronization

/// `authsh serve`: the server alone (docs/protocol/server-contract.md section 1). Its options are a
/// swift-argument-parser command; the top level keeps lua's own command line.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "An App Services-compatible auth server.",
        usage: """
            authsh serve [--host 127.0.0.1] [--port 9090] [--config FILE] [--data DIR]
                         [--database URL] [--plugins DIR] [--dev] [--dev-allow-remote]
                         [--public-url URL] [--log-level info] [--log-format text|json]
                         [--metrics-port PORT] [--metrics-host 127.0.0.1]
                         [--trusted-proxy ADDRESS[/BITS]]...
                         [--tls-cert FILE --tls-key FILE] [--tls-min-version 1.2|1.3]
            authsh serve [--data DIR | --database URL | --config FILE] migrate
            authsh serve [options] --check | --version
            """,
        discussion: """
            `migrate` creates or migrates the database's schema and exits (the server does it at
            start-up too, safely when several instances start at once).

            Prints `listening on http://HOST:PORT` (`https://` with TLS) once it accepts
            connections (and `metrics on http://HOST:PORT/metrics` for the metrics listener).
            SIGINT or SIGTERM stops it gracefully (exit 0); SIGHUP reloads the plugins and the TLS
            certificate and key. A bad config or plugin exits 78, bad usage 64.
            """,
        version: "authsh serve \(Version.number), \(Version.commit)")

    @Option(help: ArgumentHelp("Address to listen on (default 127.0.0.1).", valueName: "host"))
    var host: String?

    @Option(help: ArgumentHelp("Port; 0 binds an ephemeral one (default 9090).", valueName: "port"))
    var port: Int?

    @OptionGroup var place: DatabaseOptions

    @Option(help: ArgumentHelp("Lua plugins, every *.lua file (default ./plugins, if it exists).", valueName: "dir"))
    var plugins: String?

    @Flag(
        help: """
            Dev mode: outbox, wipe, config and clock routes under /api/dev/v1; changed plugin files \
            are reloaded for the next call; on an address other than loopback it also needs \
            --dev-allow-remote.
            """)
    var dev = false

    @Flag(help: "Dev mode on a non-loopback --host (anyone who reaches it can wipe users and read the outbox).")
    var devAllowRemote = false

    @Option(
        help: ArgumentHelp("The server's public origin, for links in mails (config publicURL).", valueName: "url"),
        transform: { url in
            guard let checked = ServerConfiguration.checkPublicURL(url) else {
                throw ValidationError("an http:// or https:// URL is needed")
            }
            return checked
        })
    var publicUrl: String?

    @Option(
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (default info).", valueName: "level"),
        transform: { level in
            guard let parsed = Logger.Level(rawValue: level) else {
                throw ValidationError("one of trace, debug, info, notice, warning, error, critical is needed")
            }
            return parsed
        })
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("text (default) or json: one JSON object per line on stderr.", valueName: "format"))
    var logFormat: LogFormat = .text

    @Option(
        help: ArgumentHelp(
            """
            Serve GET /metrics (Prometheus text format) on this port, apart from the API; off by \
            default (config metricsPort).
            """, valueName: "port"))
    var metricsPort: Int?

    @Option(help: ArgumentHelp("The metrics listener's address (default 127.0.0.1; config metricsHost).", valueName: "host"))
    var metricsHost: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            """
            A reverse proxy (address or CIDR range; repeatable): requests from it count against \
            the client its X-Forwarded-For names (config trustedProxies).
            """, valueName: "address"))
    var trustedProxies: [String] = []

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp(
            "Serve HTTPS (HTTP/2 and HTTP/1.1) with this PEM certificate chain; needs --tls-key (config tls.certFile).",
            valueName: "file"))
    var tlsCert: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp(
            "The certificate's PEM private key, readable by its owner (and group) only (config tls.keyFile).", valueName: "file"))
    var tlsKey: String?

    @Option(
        name: .customLong("tls-min-version"),
        help: ArgumentHelp(
            "The oldest TLS version served: 1.2 (the default; 1.0 and 1.1 never are) or 1.3 (config tls.minimumVersion).",
            valueName: "version"),
        transform: { version in
            guard let parsed = TLSMinimumVersion(rawValue: version) else { throw ValidationError("1.2 or 1.3 is needed") }
            return parsed
        })
    var tlsMinVersion: TLSMinimumVersion?

    @Flag(
        help: """
            Check the configuration (the config file, the apps and their providers and keys, the \
            plugins and the functions the config names, mail, the database URL, the TLS files) and exit: 0 when \
            it can be served, 78 when not. Nothing is served and no database is opened or made.
            """)
    var check = false

    @Argument(help: "`migrate`: create or migrate the schema, then exit.")
    var action: Action?

    enum LogFormat: String, ExpressibleByArgument { case text, json }
    enum Action: String, ExpressibleByArgument { case migrate }

    /// Every option checked before anything starts; a failure is bad usage (exit 64).
    func validate() throws {
        for (name, value) in [("--port", port), ("--metrics-port", metricsPort)] {
            if let value, !(0...65535).contains(value) { throw ValidationError("\(name) needs a number from 0 to 65535") }
        }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        do throws(ConfigError) { _ = try TrustedProxies(trustedProxies) } catch {
            throw ValidationError("--trusted-proxy: \(error.reason)")
        }
    }
}

/// Running `authsh serve`: the command's options, the config file, then the server.
enum Serve {
    /// Exit status for a configuration that cannot be served (sysexits EX_CONFIG).
    static let configError: Int32 = 78

    static func main(_ args: [String]) -> Int32 { CommandLineUsage.run(ServeCommand.self, args, serve) }

    private static func serve(_ command: ServeCommand) -> Int32 {
        var base = ServerConfiguration()
        base.dev = command.dev
        if let host = command.host { base.host = host }
        if let port = command.port { base.port = port }
        if let plugins = command.plugins {
            base.pluginsDirectory = plugins
            base.pluginsDirectoryRequired = true
        }
        guard var config = command.place.configuration(base, command: "authsh serve") else { return configError }
        if let url = command.publicUrl { config.publicURL = url }
        if let metricsPort = command.metricsPort { config.metricsPort = metricsPort }
        if let metricsHost = command.metricsHost { config.metricsHost = metricsHost }
        if let cert = command.tlsCert, let key = command.tlsKey {
            config.tls = TLSFiles(certFile: cert, keyFile: key, minimumVersion: config.tls?.minimumVersion ?? .tls12)
        }
        if let version = command.tlsMinVersion {
            guard config.tls != nil else {
                Output.error("authsh serve: --tls-min-version needs TLS (--tls-cert and --tls-key, or config tls)")
                return ExitStatus.usage
            }
            config.tls?.minimumVersion = version
        }
        config.reloadTLSOnHangup = true
        if !command.trustedProxies.isEmpty {
            // Valid: `validate` built the same set.
            config.trustedProxies = (try? TrustedProxies(command.trustedProxies)) ?? TrustedProxies()
        }
        var logger =
            command.logFormat == .json
            ? Logger(label: "authsh.server", factory: { JSONLogHandler(label: $0) }) : Logger(label: "authsh.server")
        logger.logLevel = command.logLevel
        if config.dev && !ServerConfiguration.isLoopback(host: config.host) {
            // The command line's host or the config file's.
            guard command.devAllowRemote else {
                Output.error(
                    "authsh serve: --dev on \(config.host), which is not a loopback address, needs --dev-allow-remote (the dev API lets anyone who reaches it wipe users and read mail)"
                )
                return ExitStatus.usage
            }
            logger.warning("dev mode on a non-loopback address: anyone who reaches \(config.host) can wipe users and read the outbox")
        }
        config.logger = logger
        config.reloadPluginsOnHangup = !config.dev
        if !config.dev && config.mail == nil {
            logger.warning("email delivery is not configured: confirmation and reset emails are not sent (config mail; --dev for an outbox)")
        }
        let finalConfig = config
        if command.check {
            return runReporting {
                let result = try await ConfigurationCheck.run(finalConfig)
                let functions = result.functions.isEmpty ? "no plugin functions" : "plugin functions \(result.functions.joined(separator: ", "))"
                print("configuration ok: apps \(result.apps.joined(separator: ", ")); \(functions); database \(Self.describe(finalConfig.database))")
            }
        }
        if command.action == .migrate {
            return runReporting {
                let name = try await migrateDatabase(finalConfig)
                print("migrated \(name)")
            }
        }
        return runReporting {
            let app = try await buildApplication(
                finalConfig,
                onListening: { host, port in
                    print("listening on \(finalConfig.scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)")
                    fflush(nil)
                },
                onMetricsListening: { host, port in
                    print("metrics on http://\(host):\(port)/metrics")
                    fflush(nil)
                })
            try await app.runService()
        }
    }

    /// The database as `--check` names it (never a password: none is allowed in a URL).
    private static func describe(_ database: ServerConfiguration.Database) -> String {
        switch database {
        case .memory: "in memory"
        case .directory(let dir): "\(dir)/authsh.sqlite"
        case .sqliteFile(let path): path
        case .postgres(let p): "PostgreSQL \(p.database) (not connected)"
        }
    }

    /// Runs `body` to its end: 0, or its error on stderr with 78 for a configuration that
    /// cannot be served and 1 for anything else.
    private static func runReporting(_ body: @escaping @Sendable () async throws -> Void) -> Int32 {
        runBlocking {
            do {
                try await body()
                return 0
            } catch let error as ConfigError {
                Output.error("authsh serve: \(error)")
                return configError
            } catch {
                Output.error("authsh serve: \(error)")
                return ExitStatus.failure
            }
        }
    }

    /// Runs async work from the synchronous entry point and waits for its status.
    static func runBlocking(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let status = Mutex<Int32>(0)
        let done = DispatchSemaphore(value: 0)
        Task {
            let s = await body()
            status.withLock { $0 = s }
            done.signal()
        }
        done.wait()
        return status.withLock { $0 }
    }
}
