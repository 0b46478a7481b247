// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging

/// The server's parts, made and wired once at start-up: the feature services, and what runs
/// beside the routes (the mail sender, the sweeper, the dev identity provider).
///
/// Nothing here is business logic, and no controller holds this type: ``buildRouter`` gives
/// each controller the services it uses. A feature's state and rules live in its service
/// (``LoginService``, ``UserpassService``, ``SessionService``, ``AdminService``, ...).
struct ServerServices {
    let store: any AuthStore
    let clock: ServerClock
    let logger: Logger
    let apps: [String: AppRuntime]
    let tokens: TokenIssuer
    let plugins: PluginRuntime
    /// Where this server is, for the URLs and links it hands out.
    let origin: PublicOrigin
    /// Where an admin key may come from (``AdminChannel``).
    let adminChannel: AdminChannel
    /// Where auth events are written (nil with `auditLog: false`).
    let auditWriter: AuditWriter?
    /// Delivers the mail queue (nil when nothing is delivered).
    let mailSender: MailSender?
    /// Present in dev mode.
    let outbox: DevOutbox?
    /// The dev identity provider (dev mode only).
    let devIdP: DevIdentityProvider?
    /// Sign-ins under way in the browser flows, and their login codes.
    let flows: OAuthFlows
    /// The `oauth2-*` providers' browser and device flows.
    let signIn: OAuthSignIn
    /// The apps as Firebase projects, and the Firebase Auth API's accounts.
    let firebaseProjects: FirebaseProjects
    let firebase: FirebaseAccounts
    /// Firebase's email actions (`sendOobCode`, `resetPassword`).
    let firebaseActions: FirebaseActions
    /// Firebase's phone sign-in.
    let firebasePhone: FirebasePhoneSignIn
    let abuse: AbuseControls
    let sessions: SessionService
    let login: LoginService
    let userpass: UserpassService
    let accounts: AccountService
    let apiKeys: APIKeyService
    /// The users' own second factors.
    let secondFactors: SecondFactorService
    /// Passkeys: registration, login, management.
    let passkeys: PasskeyService
    let functionCalls: FunctionCalls
    let admin: AdminService
    /// The Firebase Admin API's user management.
    let firebaseAdmin: FirebaseAdmin
    let sweeper: StoreSweeper
    /// Runs the apps' authentication triggers.
    let triggers: TriggerRunner
    let dev: DevOperations

    init(configuration c: ServerConfiguration, store: any AuthStore, metrics: ServerMetrics? = nil) async throws {
        self.store = store
        clock = c.clock
        logger = c.logger
        let writer = AuditWriter(store: store)
        auditWriter = c.auditLog ? writer : nil
        let states = try await SealedStates(store: store)
        flows = OAuthFlows(store: store, states: states)
        adminChannel = AdminChannel(publicURL: c.publicURL, allowsHTTP: c.adminOverHTTP, servesTLS: c.tls != nil)
        tokens = try await TokenIssuer(apps: c.apps, store: store, clock: c.clock)
        let listening = ServerOrigin()
        origin = PublicOrigin(publicURL: c.publicURL, dev: c.dev, listenHost: c.host, address: listening, scheme: c.scheme)
        let devIdP = c.dev ? try await DevIdentityProvider(store: store, clock: c.clock, origin: listening, ephemeral: c.database == .memory) : nil
        self.devIdP = devIdP
        let templates = try MailTemplates(directory: c.mailTemplates)
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
        let mailer: any Mailer
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
        // Rate limits: on PostgreSQL every instance counts in the database, so a limit holds for
        // them all; SQLite serves one process, which counts in memory.
        let limiter: any RateBuckets = if case .postgres = c.database { StoredRateLimiter(store: store) } else { RateLimiter() }
        plugins = try PluginRuntime(
            directory: c.pluginsDirectory, required: c.pluginsDirectoryRequired,
            limits: .init(memoryBytes: c.pluginMemoryLimit, deadline: c.pluginTimeLimit),
            watch: c.dev, reloadOnHangup: c.reloadPluginsOnHangup,
            apps: c.apps.map {
                PluginServices(
                    appId: $0.id, store: store, mailer: mailer, clock: c.clock, logger: c.logger,
                    templates: templates, mailsPerAddress: limiter, timeLimit: c.pluginTimeLimit)
            },
            logger: c.logger)
        apps = try await Self.apps(c, plugins: plugins, devIdP: devIdP, origin: listening)

        let abuse = AbuseControls(limiter: limiter, clock: c.clock, dev: c.dev)
        let hasher = PasswordHasher(parameters: c.passwordParameters)
        let backoff = LoginBackoff(store: store)
        let passwords = Passwords(
            store: store, hasher: hasher, dummyHash: try await hasher.hash(Secrets.randomHex(bytes: 16)),
            backoff: backoff, abuse: abuse, clock: c.clock)
        let functions = PluginFunctions(plugins: plugins, logger: c.logger, metrics: metrics)
        let hooks = AuthHooks(functions: functions, logger: c.logger)
        let triggers = TriggerRunner(
            store: store, clock: c.clock, apps: apps, functions: functions, logger: c.logger, auditWriter: auditWriter)
        self.triggers = triggers
        let sessions = SessionService(store: store, clock: c.clock, tokens: tokens, apps: apps, hooks: hooks)
        let userpass = UserpassService(
            store: store, clock: c.clock, passwords: passwords, abuse: abuse, functions: functions, mailer: mailer,
            templates: templates)
        let sweeper = StoreSweeper(store: store, clock: c.clock, auditRetention: c.auditRetentionDays * 86_400, logger: c.logger)
        self.abuse = abuse
        self.sessions = sessions
        self.userpass = userpass
        self.sweeper = sweeper
        let phoneCodes = PhoneCodes(hooks: hooks, abuse: abuse, clock: c.clock, outbox: outbox)
        let passkeys = PasskeyService(store: store, states: states, clock: c.clock, sessions: sessions, abuse: abuse, dev: c.dev)
        self.passkeys = passkeys
        login = LoginService(
            store: store, clock: c.clock, sessions: sessions, passwords: passwords, abuse: abuse, functions: functions,
            hooks: hooks, triggers: triggers, flows: flows,
            mfa: MFALogin(store: store, clock: c.clock, abuse: abuse, backoff: backoff, passkeys: passkeys, phones: phoneCodes),
            passkeys: passkeys)
        signIn = OAuthSignIn(
            apps: apps, flows: flows, clock: c.clock, login: login, sessions: sessions, abuse: abuse,
            callbackURL: { [origin] () throws(ServiceError) in try origin.callbackURL() })
        firebaseProjects = FirebaseProjects(apps: c.apps.compactMap { [apps] in apps[$0.id] }, dev: c.dev)
        firebase = FirebaseAccounts(
            store: store, clock: c.clock, login: login, sessions: sessions, passwords: passwords, abuse: abuse,
            idTokens: FirebaseIDTokens(tokens: tokens, clock: c.clock, dev: c.dev), triggers: triggers)
        firebaseActions = FirebaseActions(accounts: firebase, userpass: userpass)
        firebasePhone = FirebasePhoneSignIn(accounts: firebase, states: states, codes: phoneCodes)
        secondFactors = SecondFactorService(store: store, clock: c.clock, sessions: sessions, dev: c.dev)
        accounts = AccountService(store: store, sessions: sessions, passwords: passwords, abuse: abuse, triggers: triggers)
        apiKeys = APIKeyService(store: store, clock: c.clock, sessions: sessions)
        functionCalls = FunctionCalls(functions: functions, abuse: abuse)
        admin = AdminService(
            store: store, clock: c.clock, logger: c.logger, apps: apps, auditWriter: auditWriter, adminAuditWriter: writer,
            userpass: userpass, triggers: triggers)
        firebaseAdmin = FirebaseAdmin(store: store, clock: c.clock, admin: admin, accounts: firebase, actions: firebaseActions)
        dev = DevOperations(clock: c.clock, plugins: plugins, sweeper: sweeper)
    }

    /// The apps of the configuration as they run, each checked: the plugin functions its
    /// config names must exist, now and after every plugin reload.
    private static func apps(
        _ c: ServerConfiguration, plugins: PluginRuntime, devIdP: DevIdentityProvider?, origin: ServerOrigin
    ) async throws -> [String: AppRuntime] {
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
                try PluginFunctions.checkFunctionNames(app, exports: exports)
                apps[app.id] = try await AppRuntime(app, clock: c.clock, origin: origin)
            } catch {
                throw ConfigError(file: c.configFile, key: "apps[\(i)].\(error.key)", reason: error.reason)
            }
        }
        let runtimes = apps
        plugins.setValidator { exports in
            for app in runtimes.values {
                do throws(ConfigError) { try PluginFunctions.checkFunctionNames(app.config, exports: exports) } catch {
                    return "app \(app.id): \(error.key): \(error.reason)"
                }
            }
            return nil
        }
        return apps
    }

    /// Whether app `id` exists and has a provider of wire name `type` enabled now.
    func hasProvider(_ type: String, app id: String) -> Bool {
        apps[id]?.hasProvider(type) ?? false
    }
}
