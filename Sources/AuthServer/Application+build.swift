// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the server: the command (`authsh serve`) and the tests use this one function.
///
/// Opens (and migrates) the database, loads or creates the apps' signing keys, and registers
/// the client API (and the dev API in dev mode). Throws ``ConfigError`` for a configuration
/// that cannot be served, before anything listens.
/// - Parameters:
///   - configuration: where to listen, where data lives, which apps.
///   - onListening: called with the bound address once the server accepts connections.
///   - onMetricsListening: called with the metrics listener's address once it accepts
///     connections (only with ``ServerConfiguration/metricsPort``).
public func buildApplication(
    _ configuration: ServerConfiguration,
    onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in },
    onMetricsListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
) async throws -> some ApplicationProtocol {
    let reloader = try configuration.tls.map { files throws(ConfigError) in try CertificateReloader(files: files, logger: configuration.logger) }
    let store = try await openStore(configuration, serving: true)
    let metrics = configuration.metricsPort == nil ? nil : ServerMetrics()
    let services = try await ServerServices(configuration: configuration, store: store, metrics: metrics)
    let router = buildRouter(configuration, services: services, metrics: metrics)
    let background: [any Service] =
        configuration.adminOnly
        ? []
        : [services.sweeper, services.triggers]
            + (services.mailSender.flatMap { $0.transport.isLocal ? nil : [$0] } ?? [])
            + (metrics.map { metrics in
                [
                    MetricsListener.make(
                        metrics: metrics, store: store, host: configuration.metricsHost,
                        port: configuration.metricsPort ?? 0, logger: configuration.logger,
                        onListening: onMetricsListening)
                ]
            } ?? [])
            + (reloader.flatMap { configuration.reloadTLSOnHangup ? [CertificateReloadService(reloader: $0)] : nil } ?? [])
    return Application(
        router: router,
        server: httpServer(configuration, tls: reloader),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        // The sender runs in the background only for SMTP: the dev outbox is filled before the
        // request that sends a mail answers, by the process that answers it.
        services: background,
        onServerRunning: { channel in
            // A server runs on the database: what a restore replaced is no longer needed.
            if !configuration.adminOnly, let path = configuration.database.sqlitePath { SQLiteBackup.discardReplaced(path) }
            let address = channel.localAddress
            services.origin.address.listening(
                scheme: configuration.scheme, host: address?.ipAddress ?? configuration.host, port: address?.port ?? configuration.port)
            await onListening(address?.ipAddress ?? configuration.host, address?.port ?? configuration.port)
        },
        logger: configuration.logger
    )
}

/// How connections are served: plain HTTP/1.1, or with ``ServerConfiguration/tls`` HTTPS
/// with HTTP/2 and HTTP/1.1 by ALPN (``TLSServerChannel``). A connection with no request
/// under way (one still sending its headers, or its TLS handshake, included) is closed after
/// `idleTimeout`.
private func httpServer(_ configuration: ServerConfiguration, tls reloader: CertificateReloader?) -> HTTPServerBuilder {
    let idle = TimeAmount.nanoseconds(
        Int64(configuration.idleTimeout.components.seconds) * 1_000_000_000
            + configuration.idleTimeout.components.attoseconds / 1_000_000_000)
    guard let reloader else { return .http1(configuration: .init(idleTimeout: idle)) }
    let tls = reloader.serverConfiguration()
    return HTTPServerBuilder { responder in
        TLSServerChannel(
            inner: try HTTP2UpgradeChannel(
                tlsConfiguration: tls,
                configuration: .init(idleTimeout: configuration.idleTimeout, streamConfiguration: .init(idleTimeout: idle)),
                responder: responder),
            handshakeTimeout: idle)
    }
}

/// The router of a server built from `configuration`: its middleware and every route it
/// answers (``buildApplication(_:onListening:onMetricsListening:)`` serves it; the tests
/// compare its routes with `docs/openapi.json`). Each controller gets the services it uses.
func buildRouter(_ configuration: ServerConfiguration, services s: ServerServices, metrics: ServerMetrics?) -> Router<AuthRequestContext> {
    let router = Router(context: AuthRequestContext.self)
    if let metrics { router.add(middleware: MetricsMiddleware(metrics: metrics)) }
    if !configuration.trustedProxies.isEmpty {
        router.add(middleware: ForwardedClientMiddleware(trusted: configuration.trustedProxies))
    }
    if !configuration.adminOnly {
        for app in s.apps.values.sorted(by: { $0.id < $1.id }) {
            let allowed = app.requestOrigins(dev: configuration.dev)
            let origins =
                app.allowedRequestOrigins == nil
                ? (configuration.dev ? "any (dev mode)" : "none (allowedRequestOrigins)")
                : (allowed.entries.isEmpty ? "none" : allowed.entries.joined(separator: " "))
            configuration.logger.notice(
                "app \(app.id)",
                metadata: [
                    "providers": "\(app.providerNames.joined(separator: ","))",
                    "origins": "\(origins)",
                ])
        }
        router.add(middleware: CrossOriginMiddleware(apps: s.apps, firebase: s.firebaseProjects, dev: configuration.dev))
    }
    router.add(middleware: ErrorMiddleware(logger: configuration.logger))
    if configuration.auditLog || metrics != nil {
        let apps = s.apps
        router.add(
            middleware: AuthEventMiddleware(
                auditLog: s.auditWriter, metrics: metrics,
                isProvider: { app, type in
                    type == PasskeyService.provider
                        ? apps[app]?.webauthn(dev: configuration.dev) != nil : apps[app]?.hasProvider(type) ?? false
                },
                isApp: { app in apps[app] != nil },
                clock: configuration.clock, logger: configuration.logger))
    }
    if configuration.adminOnly {
        AdminRoutes.add(to: router, admin: s.admin, firebase: s.firebaseAdmin, keys: configuration.adminKeys, channel: s.adminChannel)
        return router
    }
    // The client API.
    let app = router.group(RouterPath(Routes.base + "/app/:app")).add(middleware: AppMiddleware(apps: s.apps))
    AppController(login: s.login, sessions: s.sessions, passkeys: s.passkeys, functionCalls: s.functionCalls, tokens: s.tokens, origin: s.origin)
        .addRoutes(to: app)
    UserpassController(userpass: s.userpass, accounts: s.accounts, sessions: s.sessions, origin: s.origin)
        .addRoutes(to: app.group("auth/providers/local-userpass"))
    let auth = router.group(RouterPath(Routes.base + "/auth"))
    SessionController(sessions: s.sessions, accounts: s.accounts).addRoutes(to: auth)
    // Routes whose caller is checked once, before the handler (a user's API keys are named by
    // a refresh token, as App Services has it).
    let refreshCaller = CallerMiddleware(sessions: s.sessions, token: .refresh)
    let accessCaller = CallerMiddleware(sessions: s.sessions, token: .access)
    APIKeyController(apiKeys: s.apiKeys).addRoutes(to: auth.group("api_keys").add(middleware: refreshCaller))
    MFAController(factors: s.secondFactors).addRoutes(to: auth.group("mfa").add(middleware: accessCaller))
    PasskeyController(passkeys: s.passkeys).addRoutes(to: auth.group("passkeys").add(middleware: accessCaller))
    OAuthController(apps: s.apps, signIn: s.signIn, adminChannel: s.adminChannel).addRoutes(to: router)
    FirebaseController(
        projects: s.firebaseProjects, accounts: s.firebase, actions: s.firebaseActions,
        emailChange: FirebaseEmailChange(actions: s.firebaseActions), phone: s.firebasePhone,
        idp: FirebaseIdpSignIn(accounts: s.firebase, oauth: s.signIn),
        secondFactors: FirebaseSecondFactors(accounts: s.firebase, factors: s.secondFactors, phone: s.firebasePhone),
        origin: s.origin
    ).addRoutes(to: router)
    if configuration.dev || !configuration.adminKeys.isEmpty {
        FirebaseAdminController(
            projects: s.firebaseProjects, admin: s.firebaseAdmin, keys: configuration.adminKeys, channel: s.adminChannel,
            origin: s.origin, dev: configuration.dev
        ).addRoutes(to: router)
    }
    HealthController(store: s.store, logger: s.logger).addRoutes(to: router)
    if !configuration.adminKeys.isEmpty {
        AdminRoutes.add(to: router, admin: s.admin, firebase: s.firebaseAdmin, keys: configuration.adminKeys, channel: s.adminChannel)
        AdminPageController(admin: s.admin, channel: s.adminChannel, keys: configuration.adminKeys, sessions: AdminPageSessions())
            .addRoutes(to: router)
    }
    if let outbox = s.outbox {
        DevController(
            dev: s.dev, triggers: s.triggers, functions: s.functionCalls.functions, outbox: outbox, store: s.store, apps: s.apps,
            origin: s.origin
        ).addRoutes(to: router)
        FirebaseEmulatorController(projects: s.firebaseProjects, store: s.store, outbox: outbox, dev: s.dev, origin: s.origin).addRoutes(to: router)
        FirebaseAuthHandlerPage(projects: s.firebaseProjects, store: s.store, origin: s.origin).addRoutes(to: router)
    }
    if configuration.dev {
        DevPasskeyPage(apps: s.apps).addRoutes(to: router)
    }
    if let idp = s.devIdP {
        DevIdPController(idp: idp, origin: s.origin.address, listenHost: s.origin.listenHost, publicURL: s.origin.publicURL)
            .addRoutes(to: router)
    }
    return router
}

/// Opens the configured database, which creates or migrates its schema, and closes it
/// (`authsh serve ... migrate`). Returns the database as messages name it (no password).
public func migrateDatabase(_ configuration: ServerConfiguration) async throws -> String {
    let store = try await openStore(configuration)
    switch configuration.database {
    case .memory: return "in memory"
    case .directory(let dir): return "sqlite:\(dir)/authsh.sqlite"
    case .sqliteFile(let path): return "sqlite:\(path)"
    case .postgres(let database):
        store.close()
        return database.description
    }
}

/// The audit log's events that `filter` selects, newest first, from the configured database
/// (`authsh audit`).
public func readAuditLog(_ configuration: ServerConfiguration, filter: AuditFilter) async throws -> [AuditEvent] {
    let store = try await openStore(configuration)
    defer { store.close() }
    return try await store.auditEvents(filter)
}

/// Reads the audit log as `tail -f` does (`authsh audit --follow`): the newest events that
/// `filter` selects, oldest first, then every `interval` the events recorded since, until the
/// task is cancelled. `body` gets each batch (never empty). An event whose transaction commits
/// after later ones were read (PostgreSQL, several instances), before the start included, is
/// shown when it commits, if that is within `grace` of its id being found missing
/// (``AuditFollower``).
public func followAuditLog(
    _ configuration: ServerConfiguration, filter: AuditFilter, interval: Duration = .seconds(1),
    grace: Duration = .seconds(10), _ body: @Sendable ([AuditEvent]) -> Void
) async throws {
    let store = try await openStore(configuration)
    defer { store.close() }
    // The newest id first, then the filter's newest below it: nothing committed between is lost.
    let top = try await store.auditEvents(AuditFilter(limit: 1)).first?.id ?? 0
    var first = filter
    first.before = top + 1
    let newest = try await store.auditEvents(first)
    if !newest.isEmpty { body(newest.reversed()) }
    // The follower starts a window below `top`: an id under it whose transaction was still open
    // at the start is waited for as any other. What the window holds now was shown above or
    // filtered out: it is taken without being shown.
    var follower = AuditFollower(after: max(0, top - AuditFollower.startWindow), grace: grace)
    let window = try await store.auditEvents(AuditFilter(after: follower.settled, limit: Int(AuditFollower.startWindow)))
    _ = follower.take(window.filter { $0.id <= top }, now: .now)  // above `top` came after the first page: news
    let batch = 1000
    while true {
        try await Task.sleep(for: interval)
        // Every event above `settled`, unfiltered (a missing id must not be taken for one the
        // filter skips), a batch at a time.
        var read: [AuditEvent] = []
        var after = follower.settled
        while true {
            let page = try await store.auditEvents(AuditFilter(after: after, limit: batch))
            read += page
            guard let last = page.last, page.count == batch else { break }
            after = last.id
        }
        let shown = follower.take(read, now: .now).filter(filter.matches)
        if !shown.isEmpty { body(shown) }
    }
}

/// Opens the configured database. For SQLite a missing data directory is created 0700, one
/// that others can write to is refused (``PrivateFiles``), and the database is made 0600
/// whether or not it existed: it holds the signing keys, and SQLite gives its `-wal` and `-shm`
/// files the database's mode. `serving`: for a server
/// (a PostgreSQL pool that keeps its connections), not a command that reads and exits.
func openStore(_ configuration: ServerConfiguration, serving: Bool = false) async throws -> any AuthStore {
    switch configuration.database {
    case .memory:
        return try SQLiteStore(path: nil)
    case .directory, .sqliteFile:
        return try openSQLite(configuration.database.sqlitePath ?? "")
    case .postgres(let database):
        do {
            return try await PostgresStore(
                configuration: database.clientConfiguration(serving: serving), logger: configuration.logger,
                startupTimeout: database.startupTimeout)
        } catch {
            // The URL without its password, and what failed.
            throw ConfigError(key: "database", reason: "\(database): \(error)")
        }
    }
}

/// Opens a SQLite file; a database that cannot be opened as it should (a shared directory, a
/// damaged write-ahead log, a file that is not a database or cannot be written) is a
/// configuration error naming the file: `authsh serve` exits 78 and never starts on it.
private func openSQLite(_ path: String) throws -> SQLiteStore {
    do {
        let dir = (path as NSString).deletingLastPathComponent
        try PrivateFiles.directory(dir.isEmpty ? "." : dir)
        try RecoveryCheck.check(database: path)
        for file in [path, path + "-wal", path + "-shm"] { try PrivateFiles.file(file, create: file == path) }
        return try SQLiteStore(path: path)
    } catch let failure as PrivateFiles.Failure {
        throw ConfigError(key: "database", reason: failure.description)
    } catch let error as StoreError {
        throw ConfigError(key: "database", reason: error.operation)
    }
}
