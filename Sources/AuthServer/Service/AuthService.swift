import AuthProtocol
import Logging

/// The server's shared state and the operations behind the routes.
final class AuthService: Sendable {
    let store: any AuthStore
    let hasher: PasswordHasher
    let clock: ServerClock
    let tokens: TokenIssuer
    let apps: [String: AppRuntime]
    let mailer: any Mailer
    /// How long audit events are kept, in seconds.
    let auditRetention: Int64
    /// The mails' subjects and parts.
    let templates: MailTemplates
    /// Delivers the mail queue (nil when nothing is delivered).
    let mailSender: MailSender?
    /// Present in dev mode.
    let outbox: DevOutbox?
    let logger: Logger
    /// What `/metrics` counts (nil without `--metrics-port`).
    let metrics: ServerMetrics?
    /// Where auth events are written (nil with `auditLog: false`).
    let auditWriter: AuditWriter?
    /// Where admin changes and sign-ins are written: always, whatever `auditLog` says (few,
    /// and each one a privileged act someone will want to account for).
    let adminAuditWriter: AuditWriter
    /// Refused admin requests recorded per address (``adminRefused(app:from:code:)``).
    let adminRefusals = AuditFailureBudget(perMinute: 120)
    /// Verified against when the user is unknown, so that both answers take as long.
    let dummyHash: String
    /// The Lua plugins.
    let plugins: PluginRuntime
    /// The server's public origin for links (``ServerConfiguration/publicURL``).
    let publicURL: String?
    /// Where an admin key may come from (``AdminChannel``).
    let adminChannel: AdminChannel
    /// The address the server listens on.
    let listenHost: String
    /// Rate limits' buckets and failed-login back-off (``checkRate``).
    let limiter = RateLimiter()
    let backoff: LoginBackoff
    /// This server's address once it listens (endpoints given as paths on it).
    let origin: ServerOrigin
    /// Sign-ins under way in the browser flows, and their login codes.
    let flows: OAuthFlows
    /// The dev identity provider (dev mode only).
    let devIdP: DevIdentityProvider?

    /// API keys per user.
    static let apiKeyLimit = 20
    /// Confirmation and reset links live 30 minutes.
    static let linkLifetime: Int64 = 1800
    /// Anonymous users are deleted this long after their login: 90 days.
    static let anonymousLifetime: Int64 = 90 * 86_400
    /// Reset and confirmation tokens kept valid per email and kind (older ones are dropped).
    static let outstandingTokens = 5
    /// "Never" for anonymous refresh tokens: 100 years.
    static let noExpiry: Int64 = 3_155_760_000

    init(configuration c: ServerConfiguration, store: any AuthStore, metrics: ServerMetrics? = nil) async throws {
        self.store = store
        self.metrics = metrics
        let writer = AuditWriter(store: store)
        auditWriter = c.auditLog ? writer : nil
        adminAuditWriter = writer
        backoff = LoginBackoff(store: store)
        flows = OAuthFlows(store: store)
        publicURL = c.publicURL
        adminChannel = AdminChannel(publicURL: c.publicURL, allowsHTTP: c.adminOverHTTP)
        listenHost = c.host
        hasher = PasswordHasher(parameters: c.passwordParameters)
        clock = c.clock
        logger = c.logger
        tokens = try await TokenIssuer(apps: c.apps, store: store, clock: c.clock)
        let origin = ServerOrigin()
        self.origin = origin
        let devIdP = c.dev ? try await DevIdentityProvider(store: store, clock: c.clock, origin: origin, ephemeral: c.database == .memory) : nil
        self.devIdP = devIdP
        auditRetention = c.auditRetentionDays * 86_400
        let templates = try MailTemplates(directory: c.mailTemplates)
        self.templates = templates
        // Mail: SMTP when configured (in dev mode the outbox keeps a copy); else, in dev mode,
        // the outbox; else nothing (a warning).
        outbox = c.dev ? DevOutbox() : nil
        var transport: (any MailTransport)? = outbox
        var policy = MailSender.DeliveryPolicy()
        var domain = "localhost"
        if let mail = c.mail, let from = MailAddress(mail.from) {
            let hello = c.publicURL.flatMap { RedirectURI($0)?.host } ?? "localhost"
            transport = SMTPTransport(client: try SMTPClient(configuration: mail, helloName: hello), from: from)
            policy = mail.deliveryPolicy
            domain = from.domain
        }
        if let transport {
            let sender = MailSender(
                store: store, transport: transport, clock: c.clock, policy: policy, logger: c.logger,
                metrics: metrics)
            mailSender = sender
            let copy = transport.isLocal ? nil : outbox
            mailer = MailQueue(store: store, sender: sender, clock: c.clock, domain: domain, devCopy: copy)
        } else {
            mailSender = nil
            mailer = UndeliveredMail(store: store, logger: c.logger)
        }
        let mailer = mailer
        plugins = try PluginRuntime(
            directory: c.pluginsDirectory, required: c.pluginsDirectoryRequired,
            limits: .init(memoryBytes: c.pluginMemoryLimit, deadline: c.pluginTimeLimit),
            watch: c.dev, reloadOnHangup: c.reloadPluginsOnHangup,
            apps: c.apps.map {
                PluginServices(
                    appId: $0.id, store: store, mailer: mailer, clock: c.clock, logger: c.logger,
                    templates: templates)
            },
            logger: c.logger)
        var configs = c.apps
        let exports = plugins.exports
        // Zero config in dev mode: custom-function login is on when a plugin exports `login`.
        // Outside dev mode only a config turns it on (the example plugin accepts anyone).
        if c.configFile == nil, c.dev, exports.contains("login") {
            for i in configs.indices where configs[i].providers.customFunction == nil {
                configs[i].providers.customFunction = .init()
            }
        }
        // Zero config in dev mode: GitHub and Google sign-in against the dev identity provider.
        if c.configFile == nil, let devIdP {
            for i in configs.indices { devIdP.enableSignIn(&configs[i].providers) }
        }
        var apps: [String: AppRuntime] = [:]
        for (i, app) in configs.enumerated() {
            do {
                try Self.checkFunctionNames(app, exports: exports)
                apps[app.id] = try await AppRuntime(app, clock: c.clock, origin: origin)
            } catch {
                throw ConfigError(file: c.configFile, key: "apps[\(i)].\(error.key)", reason: error.reason)
            }
        }
        self.apps = apps
        let runtimes = apps
        plugins.setValidator { exports in
            for app in runtimes.values {
                do throws(ConfigError) { try Self.checkFunctionNames(app.config, exports: exports) } catch {
                    return "app \(app.id): \(error.key): \(error.reason)"
                }
            }
            return nil
        }
        dummyHash = try await hasher.hash(Secrets.randomHex(bytes: 16))
    }

    /// A new id (users, identities, sessions, keys, token ids): 24 hex digits stamped with the server clock.
    func newId() -> String {
        ObjectId(seconds: UInt32(truncatingIfNeeded: clock.now)).hex
    }

    /// Whether app `id` exists and has a provider of wire name `type` enabled now.
    func hasProvider(_ type: String, app id: String) -> Bool {
        apps[id]?.hasProvider(type) ?? false
    }

    /// The app named in the path, or 404.
    func app(_ id: String) throws(ServiceError) -> AppRuntime { try AppMiddleware.app(id, in: apps) }

    /// The app named by the route's `:app` parameter, or 404 `AppNotFound`: for the admin page,
    /// which checks its session first and shows errors as pages. Other routes read
    /// ``AuthRequestContext/app``, resolved by ``AppMiddleware``.
    func app(of context: AuthRequestContext) throws(ServiceError) -> AppRuntime {
        try app(context.parameters.get("app") ?? "")
    }

    /// Passwords are 6 to 128 characters.
    static func checkPasswordLength(_ password: String) throws(ServiceError) {
        guard (6...128).contains(password.count) else {
            throw ServiceError(.badRequest, "password must be between 6 and 128 characters")
        }
    }

    /// A store call whose conflict means `conflict` to the client.
    func storing<T>(_ conflict: ServiceError, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let e as StoreError where e.isConflict {
            throw conflict
        }
    }
}
