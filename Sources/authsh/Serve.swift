import AuthServer
import Dispatch
import Glibc
import Hummingbird
import Logging
import Synchronization

/// `authsh serve`: the server alone (server-contract.md).
enum Serve {
    static let usage = """
        usage: authsh serve [--host 127.0.0.1] [--port 9090] [--config FILE] [--data DIR]
                            [--database URL] [--plugins DIR] [--dev] [--dev-allow-remote]
                            [--public-url URL] [--log-level info] [--log-format text|json]
                            [--metrics-port PORT] [--metrics-host 127.0.0.1]
                            [--trusted-proxy ADDRESS[/BITS]]...
               authsh serve [--data DIR | --database URL | --config FILE] migrate
        """

    static let help = """
        authsh serve: an App Services-compatible auth server.

        \(usage)

          --host HOST        address to listen on (default 127.0.0.1)
          --port PORT        port; 0 binds an ephemeral one (default 9090)
          --config FILE      JSON config of the apps (default: one app, `local`)
          --data DIR         where the SQLite database and keys live (default as for authsh)
          --database URL     sqlite:PATH, or postgres://USER@HOST:PORT/DB?sslmode=MODE to
                             share one PostgreSQL among several instances (the password
                             from PGPASSWORD; config key database)
          --plugins DIR      Lua plugins, every *.lua file (default ./plugins, if it exists)
          --dev              dev mode: outbox, wipe, config and clock routes under /api/dev/v1;
                             changed plugin files are reloaded for the next call; on an
                             address other than loopback it also needs --dev-allow-remote
          --dev-allow-remote dev mode on a non-loopback --host (anyone who reaches it can
                             wipe users and read the outbox)
          --public-url URL   the server's public origin, for links in mails (config publicURL)
          --log-level LEVEL  trace, debug, info, notice, warning, error or critical (default info)
          --log-format F     text (default) or json: one JSON object per line on stderr
          --metrics-port P   serve GET /metrics (Prometheus text format) on this port, apart
                             from the API; off by default (config metricsPort)
          --metrics-host H   the metrics listener's address (default 127.0.0.1; config
                             metricsHost)
          --trusted-proxy A  a reverse proxy (address or CIDR range; repeatable): requests
                             from it count against the client its X-Forwarded-For names
                             (config trustedProxies)

        `migrate` creates or migrates the database's schema and exits (the server does it at
        start-up too, safely when several instances start at once).

        Prints `listening on http://HOST:PORT` once it accepts connections (and `metrics on
        http://HOST:PORT/metrics` for the metrics listener). SIGINT or SIGTERM
        stops it gracefully (exit 0); SIGHUP reloads the plugins. A bad config or plugin
        exits 78, bad usage 64.
        """

    /// Exit status for a configuration that cannot be served (sysexits EX_CONFIG).
    static let configError: Int32 = 78

    static func main(_ args: [String]) -> Int32 {
        var config = ServerConfiguration()
        config.database = .directory(Paths.defaultDataDirectory())
        var configFile: String?
        var level = Logger.Level.info
        var allowRemoteDev = false
        var publicURL: String?
        var database: ServerConfiguration.Database?
        var migrateOnly = false
        var jsonLogs = false
        var metricsPort: Int?
        var metricsHost: String?
        var proxies: [String] = []
        var i = 0
        func value(_ option: String) -> String? {
            i += 1
            return i < args.count ? args[i] : nil
        }
        func bad(_ message: String) -> Int32 {
            Output.error("authsh serve: \(message)\n\(usage)")
            return ExitStatus.usage
        }
        while i < args.count {
            let arg = args[i]
            switch arg {
            case "-h", "--help":
                print(help)
                return 0
            case "--dev": config.dev = true
            case "--dev-allow-remote": allowRemoteDev = true
            case "--public-url":
                guard let v = value(arg), let url = ServerConfiguration.checkPublicURL(v) else {
                    return bad("--public-url needs an http:// or https:// URL")
                }
                publicURL = url
            case "--host":
                guard let v = value(arg) else { return bad("--host needs a value") }
                config.host = v
            case "--port":
                guard let v = value(arg), let port = Int(v), (0...65535).contains(port) else {
                    return bad("--port needs a number from 0 to 65535")
                }
                config.port = port
            case "--config":
                guard let v = value(arg) else { return bad("--config needs a file") }
                configFile = v
            case "--data":
                guard let v = value(arg) else { return bad("--data needs a directory") }
                config.database = .directory(v)
            case "--database":
                guard let v = value(arg) else { return bad("--database needs sqlite:PATH or a postgres:// URL") }
                do {
                    database = try ServerConfiguration.Database.parse(v, key: "--database", passwordAllowed: false)
                } catch {
                    return bad("\(error)")
                }
            case "--plugins":
                guard let v = value(arg) else { return bad("--plugins needs a directory") }
                config.pluginsDirectory = v
                config.pluginsDirectoryRequired = true
            case "--log-format":
                guard let v = value(arg), v == "json" || v == "text" else { return bad("--log-format needs text or json") }
                jsonLogs = v == "json"
            case "--metrics-port":
                guard let v = value(arg), let port = Int(v), (0...65535).contains(port) else {
                    return bad("--metrics-port needs a number from 0 to 65535")
                }
                metricsPort = port
            case "--metrics-host":
                guard let v = value(arg) else { return bad("--metrics-host needs a value") }
                metricsHost = v
            case "--trusted-proxy":
                guard let v = value(arg) else { return bad("--trusted-proxy needs an address or CIDR range") }
                do throws(ConfigError) {
                    _ = try TrustedProxies([v])
                } catch {
                    return bad("--trusted-proxy: \(error.reason)")
                }
                proxies.append(v)
            case "--log-level":
                guard let v = value(arg), let l = Logger.Level(rawValue: v) else {
                    return bad("--log-level needs one of trace, debug, info, notice, warning, error, critical")
                }
                level = l
            case "migrate" where i == args.count - 1:
                migrateOnly = true
            default:
                return bad("unknown option '\(arg)'")
            }
            i += 1
        }
        if let configFile {
            guard let bytes = Files.read(configFile) else {
                Output.error("authsh serve: config \(configFile): cannot read it (\(String(cString: strerror(errno))))")
                return configError
            }
            do {
                try config.loadConfig(bytes, file: configFile)
            } catch {
                Output.error("authsh serve: \(error)")
                return configError
            }
        }
        if let publicURL { config.publicURL = publicURL }
        if let database { config.database = database }
        if let metricsPort { config.metricsPort = metricsPort }
        if let metricsHost { config.metricsHost = metricsHost }
        if !proxies.isEmpty {
            // Valid: each was checked as it was read.
            config.trustedProxies = (try? TrustedProxies(proxies)) ?? TrustedProxies()
        }
        var logger = jsonLogs ? Logger(label: "authsh.server", factory: { JSONLogHandler(label: $0) }) : Logger(label: "authsh.server")
        logger.logLevel = level
        if config.dev && !ServerConfiguration.isLoopback(host: config.host) {
            guard allowRemoteDev else {
                return bad("--dev on \(config.host), which is not a loopback address, needs --dev-allow-remote (the dev API lets anyone who reaches it wipe users and read mail)")
            }
            logger.warning("dev mode on a non-loopback address: anyone who reaches \(config.host) can wipe users and read the outbox")
        }
        config.logger = logger
        config.reloadPluginsOnHangup = !config.dev
        if !config.dev && config.mail == nil {
            logger.warning("email delivery is not configured: confirmation and reset emails are not sent (config mail; --dev for an outbox)")
        }
        let finalConfig = config
        if migrateOnly {
            return runReporting {
                let name = try await migrateDatabase(finalConfig)
                print("migrated \(name)")
            }
        }
        return runReporting {
            let app = try await buildApplication(finalConfig, onListening: { host, port in
                print("listening on http://\(host):\(port)")
                fflush(nil)
            }, onMetricsListening: { host, port in
                print("metrics on http://\(host):\(port)/metrics")
                fflush(nil)
            })
            try await app.runService()
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
