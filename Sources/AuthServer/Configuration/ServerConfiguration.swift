// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging

/// Everything ``buildApplication(_:)`` needs: where to listen, where data lives, which apps.
public struct ServerConfiguration: Sendable {
    /// Where the database lives.
    public enum Database: Sendable, Equatable {
        /// SQLite in memory, gone when the server stops (tests).
        case memory
        /// SQLite: `authsh.sqlite` in this directory (created 0700 if missing).
        case directory(String)
        /// SQLite: this file (`sqlite:PATH`; its directory is created 0700 if missing, and refused
        /// if others can write to it).
        case sqliteFile(String)
        /// PostgreSQL, which several instances can share.
        case postgres(PostgresDatabase)

        /// The SQLite file of a database on disk (`DIR/authsh.sqlite` for a directory).
        public var sqlitePath: String? {
            switch self {
            case .directory(let dir): dir + "/authsh.sqlite"
            case .sqliteFile(let path): path
            case .memory, .postgres: nil
            }
        }

        /// `sqlite:PATH` or a `postgres://` URL (``PostgresDatabase``); `passwordAllowed` when
        /// the text came from the environment or a file.
        public static func parse(_ text: String, key: String, passwordAllowed: Bool) throws(ConfigError) -> Database {
            if text.hasPrefix("sqlite:") {
                let path = String(text.dropFirst("sqlite:".count))
                guard !path.isEmpty, !path.hasSuffix("/") else { throw ConfigError(key: key, reason: "sqlite: needs a file path") }
                return .sqliteFile(path)
            }
            return .postgres(try PostgresDatabase(url: text, key: key, passwordAllowed: passwordAllowed))
        }
    }

    public var host = "127.0.0.1"
    /// 0 binds an ephemeral port.
    public var port = 9090
    public var database = Database.memory
    /// Where Lua plugins come from (every `*.lua` file); nil: no plugins. A missing directory
    /// has no plugins, unless ``pluginsDirectoryRequired`` (an explicit `--plugins`).
    public var pluginsDirectory: String? = "plugins"
    /// A missing plugins directory is a config error.
    public var pluginsDirectoryRequired = false
    /// Bytes one plugin state may allocate (32 MiB).
    public var pluginMemoryLimit = 32 << 20
    /// Wall-clock time one plugin call may take (1 s).
    public var pluginTimeLimit = Duration.seconds(1)
    /// Reload plugins on SIGHUP (`authsh serve` in production; dev mode reloads changed files by itself).
    public var reloadPluginsOnHangup = false
    /// Dev mode: the outbox, wipe, config and clock routes.
    public var dev = false
    /// Serve the admin API alone (`authsh admin` on a database): no client API, page, OAuth or
    /// dev routes, and no background work (no sweep, no mail sender, no metrics), so a command
    /// run by hand neither opens a login endpoint nor deletes what the real server's retention
    /// settings keep. Mail it queues (a reset) is sent by the server that serves the database.
    public var adminOnly = false
    /// The apps served; the zero-config default is one app, `local`.
    public var apps = [AppConfiguration(id: "local")]
    /// The config file the apps came from, for error messages.
    public var configFile: String?
    /// Argon2id parameters for new hashes.
    public var passwordParameters = PasswordParameters.owaspMinimum
    /// The logger (the library logs nothing unless given one).
    public var logger = Logger(label: "authsh.server", factory: { _ in SwiftLogNoOpLogHandler() })
    /// The clock; the dev API moves it forward.
    public var clock = ServerClock()
    /// The server's public origin (`https://auth.example.com`), for the links in its mails;
    /// config `publicURL`, `--public-url`. Never taken from a request's `Host` header.
    public var publicURL: String?
    /// A connection with no request under way is closed after this long.
    public var idleTimeout = Duration.seconds(60)
    /// Mail delivery through SMTP (config `mail`); nil: the dev outbox in dev mode, else no
    /// delivery (a warning per mail).
    public var mail: MailConfiguration?
    /// A directory of mail templates overriding the defaults (config `mailTemplates`; see
    /// ``MailTemplates``).
    public var mailTemplates: String?
    /// Whether auth events are written to the audit log (config `auditLog`, default on; admin
    /// changes and sign-ins are written either way), and for how many days events
    /// are kept (config `auditRetentionDays`, default 90).
    public var auditLog = true
    public var auditRetentionDays: Int64 = 90
    /// The reverse proxies whose `X-Forwarded-For` names the client (config `trustedProxies`,
    /// `--trusted-proxy`); none by default, so the header is ignored.
    public var trustedProxies = TrustedProxies()
    /// The admin API's keys (config `adminKeys`); none: no admin API, no admin page.
    public var adminKeys = AdminKeys()
    /// Whether the admin API and page take a key over plain http from another machine (config
    /// `adminOverHTTP`, default false): by default only over https or from this machine.
    public var adminOverHTTP = false
    /// Where `/metrics` answers (`--metrics-port`, config `metricsPort`): nil for nowhere
    /// (the default); 0 binds an ephemeral port.
    public var metricsPort: Int?
    /// The address of the metrics listener (`--metrics-host`, config `metricsHost`; default
    /// loopback, so that exposing it is a choice).
    public var metricsHost = "127.0.0.1"
    /// Serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with this certificate and key (config `tls`,
    /// `--tls-cert`, `--tls-key`); nil: plain HTTP.
    public var tls: TLSFiles?
    /// Read the TLS certificate and key again on SIGHUP (`authsh serve`).
    public var reloadTLSOnHangup = false

    public init() {}

    /// The scheme the server listens with: `https` with ``tls``, else `http`.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// True for 127.0.0.0/8, ::1 and `localhost` (a bracketed IPv6 address and a port are allowed).
    public static func isLoopback(host: String) -> Bool { Loopback.isLoopback(host: host) }

    /// `url` without a trailing slash when it is an http(s) URL with a host and no query or
    /// fragment; nil otherwise.
    public static func checkPublicURL(_ url: String) -> String? {
        var text = url
        while text.hasSuffix("/") { text.removeLast() }
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        let rest = text.drop(while: { $0 != ":" }).dropFirst(3)
        guard let host = rest.split(separator: "/", omittingEmptySubsequences: false).first, !host.isEmpty,
            !text.contains("?"), !text.contains("#"), !text.contains("@"),
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        return text
    }

    /// Reads the apps from a config file's bytes; errors name `file` and the key.
    public mutating func loadConfig(_ bytes: [UInt8], file: String) throws(ConfigError) {
        let root: EJSON
        do {
            root = try EJSON(parsing: bytes)
        } catch {
            throw ConfigError(file: file, key: "", reason: "\(error)")
        }
        do throws(ConfigError) {
            var r = try ConfigReader(root, path: "")
            if let v = r.value("database") {
                let secret = try ConfigSecret(ejson: v, key: "database")
                if case .string = secret.source {
                    database = try Database.parse(secret.value, key: "database", passwordAllowed: false)
                } else {
                    database = try Database.parse(secret.value, key: "database", passwordAllowed: true)
                }
            }
            if let mail = r.value("mail") { self.mail = try MailConfiguration(ejson: mail, path: "mail") }
            mailTemplates = try r.string("mailTemplates")
            auditLog = try r.bool("auditLog", default: true)
            auditRetentionDays = try r.integer("auditRetentionDays", in: 1...3650) ?? auditRetentionDays
            if let port = try r.integer("metricsPort", in: 0...65535) { metricsPort = Int(port) }
            metricsHost = try r.string("metricsHost") ?? metricsHost
            if let proxies = try r.strings("trustedProxies") { trustedProxies = try TrustedProxies(proxies) }
            if let keys = r.value("adminKeys") { adminKeys = try AdminKeys(ejson: keys) }
            adminOverHTTP = try r.bool("adminOverHTTP", default: false)
            if let tls = r.value("tls") { self.tls = try TLSFiles(ejson: tls, path: "tls") }
            if let url = try r.string("publicURL") {
                guard let checked = Self.checkPublicURL(url) else {
                    throw ConfigError(
                        key: "publicURL", reason: "must be an http:// or https:// origin (scheme, host, optional port and path), got \"\(url)\"")
                }
                publicURL = checked
            }
            guard let list = r.value("apps") else { throw ConfigError(key: "apps", reason: "missing") }
            guard case .array(let items) = list, !items.isEmpty else { throw r.mismatch("apps", "a non-empty array", list) }
            var apps: [AppConfiguration] = []
            for (i, item) in items.enumerated() {
                let app = try AppConfiguration(ejson: item, path: "apps[\(i)]")
                if apps.contains(where: { $0.id == app.id }) {
                    throw ConfigError(key: "apps[\(i)].id", reason: "app id \"\(app.id)\" is used twice")
                }
                if let firebase = app.firebase {
                    // A project, and an API key, name one app.
                    if apps.contains(where: { $0.firebase?.projectId == firebase.projectId }) {
                        throw ConfigError(key: "apps[\(i)].firebase.projectId", reason: "project \"\(firebase.projectId)\" is used twice")
                    }
                    if let shared = firebase.apiKeys.first(where: { key in apps.contains { $0.firebase?.apiKeys.contains(key) == true } }) {
                        throw ConfigError(
                            key: "apps[\(i)].firebase.apiKeys", reason: "API key \"\(printable(shared, limit: 12))\" is another app's too")
                    }
                }
                apps.append(app)
            }
            try r.finish()
            self.apps = apps
            self.configFile = file
        } catch {
            var e = error
            e.file = file
            throw e
        }
    }
}
