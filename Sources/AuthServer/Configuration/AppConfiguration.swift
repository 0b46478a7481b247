// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// One app the server serves: its id, token lifetimes, providers and plugin values.
///
/// The keys are those of the config file (docs/protocol/server-contract.md section 2);
/// ``init(ejson:path:)`` reads them and ``ejson`` writes them back, so the dev API can read and
/// patch the same document.
public struct AppConfiguration: Sendable, Equatable {
    /// The app id in `/api/client/v2.0/app/{id}`.
    public var id: String
    /// Access token lifetime (default 30 minutes).
    public var accessTokenLifetimeSeconds: Int64 = 1800
    /// Refresh token lifetime (default 60 days; 1800 s to 180 days). Anonymous sessions never expire.
    public var refreshTokenLifetimeSeconds: Int64 = 5_184_000
    /// `HS256` (default: a per-app secret kept in the database) or `ES256` (JWKS published).
    public var tokenSigningAlgorithm: String = "HS256"
    /// The providers.
    public var providers = Providers()
    /// `context.values` for plugins.
    public var values = EJSONDocument()
    /// Rate limits of the unauthenticated routes (``RateLimits``).
    public var rateLimits = RateLimits()
    /// Bounds on what plugins may do through `context` (``PluginQuota``).
    public var pluginLimits = PluginQuota()
    /// When on, register, confirm/send, reset/send and reset/call answer alike whether or not
    /// an email has an account (and register of a taken email mails its owner); off by
    /// default, as App Services behaved.
    public var emailEnumerationProtection = false
    /// When on, a login whose provider vouches for a verified email that belongs to another
    /// user creates nothing and answers 409 `AccountExistsWithDifferentCredential` with a
    /// pending credential to link (docs/protocol/identity-providers.md section 5). Off by default, as App
    /// Services behaved (a new identity is a new user); on for the embedded dev server.
    public var oneAccountPerEmail = false
    /// When set, deleting the user, unlinking, changing the password and ending sessions need
    /// a login (`auth_time`) at most this many seconds old, else 401 `RequiresRecentLogin`.
    public var recentLoginSeconds: Int64?
    /// The web origins whose pages may call the client API from a browser (CORS); nil: the
    /// server's default, any origin in dev mode and none otherwise.
    public var allowedRequestOrigins: RequestOrigins?
    /// The plugin functions that run inside the app's auth requests (``HookConfiguration``).
    public var hooks = HookConfiguration()
    /// Second factors users may enrol (`mfa`).
    public var mfa = MFAConfiguration()
    /// Passkeys (`webauthn`); nil: none, except dev mode's (``WebAuthnConfiguration/dev``).
    public var webauthn: WebAuthnConfiguration?
    /// Authentication triggers (``TriggerConfiguration``), run after the fact.
    public var triggers: [TriggerConfiguration] = []
    /// Where plugins may send HTTP requests (``HTTPAllowList``); empty: nowhere.
    public var httpAllowList = HTTPAllowList()
    /// The Firebase project the app answers as (``FirebaseConfiguration``); nil: none, but
    /// in dev mode the app's own id.
    public var firebase: FirebaseConfiguration?

    /// The authentication providers of an app; nil or false means disabled. In code, and for a
    /// config app with no `providers` key, anonymous, email/password and API keys are on; a
    /// config's `providers` object turns on exactly the providers it lists.
    public struct Providers: Sendable, Equatable {
        public var anonymous = true
        public var userpass: Userpass? = Userpass()
        public var apiKey = true
        public var customFunction: CustomFunction?
        public var customToken: CustomToken?
        /// `phone` (``Phone``): off unless listed (a dev server takes phone sign-ins for every
        /// app, as the Auth emulator does).
        public var phone: Phone?
        /// The `oauth2-*` providers, by key (``OAuthProviderConfiguration``).
        public var oauth: [String: OAuthProviderConfiguration] = [:]
        public init() {}
    }

    /// `local-userpass`, with App Services' field names.
    public struct Userpass: Sendable, Equatable {
        public var autoConfirm = false
        public var emailConfirmationUrl: String?
        public var confirmEmailSubject = "Confirm your account"
        public var runConfirmationFunction = false
        public var confirmationFunctionName: String?
        public var resetPasswordUrl: String?
        public var resetPasswordSubject = "Reset your password"
        public var runResetFunction = false
        public var resetFunctionName: String?
        public init() {}
    }

    /// `custom-function`: the plugin function that turns a payload into an external id.
    public struct CustomFunction: Sendable, Equatable {
        public var authFunctionName = "login"
        public init() {}
    }

    /// `custom-token`: JWTs signed by another service.
    public struct CustomToken: Sendable, Equatable {
        /// `HS256` or `RS256`.
        public var signingAlgorithm = "HS256"
        /// HS256 shared secrets, or RS256 public keys in PEM.
        public var signingKeys: [String] = [] {
            didSet { signingKeySources = nil }
        }
        /// The keys as the config file wrote them (``ConfigSecret/source``), for the dev API's
        /// view of the config; nil when they were set in code.
        var signingKeySources: [EJSON]?
        /// A JWKS URL to fetch RS256 keys from instead.
        public var jwkURI: String?
        /// How long a fetch of `jwkURI` may take, in seconds (1 to 120; default 5).
        public var timeoutSeconds: Int64 = 5
        /// Accepted `aud` values; nil accepts any.
        public var audience: [String]?
        /// Claims copied into profile `data`.
        public var metadataFields: [MetadataField] = []
        public init() {}
    }

    /// One `metadataFields` entry: claim `name` (a dotted path) goes to profile field `field_name`.
    public struct MetadataField: Sendable, Equatable {
        public var required: Bool
        public var name: String
        public var fieldName: String
        public init(required: Bool, name: String, fieldName: String) {
            self.required = required
            self.name = name
            self.fieldName = fieldName
        }
    }

    /// The zero-config app: every provider that needs no outside secret.
    public init(id: String) {
        self.id = id
    }
}

extension AppConfiguration {
    /// Reads an app object of the config file; errors name `path` and the key.
    public init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        guard let id = try r.string("id"), !id.isEmpty else {
            throw ConfigError(key: r.keyPath("id"), reason: "missing: every app needs an id")
        }
        guard
            id.utf8.allSatisfy({
                $0 < 128 && ($0 == 45 || $0 == 95 || $0 == 46 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0))
            })
        else {
            throw ConfigError(key: r.keyPath("id"), reason: "may hold only letters, digits, '-', '_' and '.'")
        }
        self.init(id: id)
        accessTokenLifetimeSeconds = try r.integer("accessTokenLifetimeSeconds", in: 60...86_400) ?? accessTokenLifetimeSeconds
        refreshTokenLifetimeSeconds = try r.integer("refreshTokenLifetimeSeconds", in: 1800...15_552_000) ?? refreshTokenLifetimeSeconds
        if let alg = try r.string("tokenSigningAlgorithm") {
            guard alg == "HS256" || alg == "ES256" else {
                throw ConfigError(key: r.keyPath("tokenSigningAlgorithm"), reason: "must be \"HS256\" or \"ES256\", got \"\(alg)\"")
            }
            tokenSigningAlgorithm = alg
        }
        if let p = r.value("providers") {
            providers = try Providers(ejson: p, path: r.keyPath("providers"))
        }
        if let v = r.value("values") {
            guard case .document(let d) = v else { throw r.mismatch("values", "an object", v) }
            values = d
        }
        if let v = r.value("rateLimits") {
            rateLimits = try RateLimits(ejson: v, path: r.keyPath("rateLimits"))
        }
        if let v = r.value("pluginLimits") {
            pluginLimits = try PluginQuota(ejson: v, path: r.keyPath("pluginLimits"))
        }
        emailEnumerationProtection = try r.bool("emailEnumerationProtection", default: false)
        oneAccountPerEmail = try r.bool("oneAccountPerEmail", default: false)
        recentLoginSeconds = try r.integer("recentLoginSeconds", in: 1...31_536_000)
        if let origins = try r.strings("allowedRequestOrigins") {
            allowedRequestOrigins = try RequestOrigins(origins, path: r.keyPath("allowedRequestOrigins"))
        }
        if let v = r.value("hooks") {
            hooks = try HookConfiguration(ejson: v, path: r.keyPath("hooks"))
        }
        if let v = r.value("mfa") {
            mfa = try MFAConfiguration(ejson: v, path: r.keyPath("mfa"))
        }
        if let v = r.value("webauthn"), v != .null {
            webauthn = try WebAuthnConfiguration(ejson: v, path: r.keyPath("webauthn"))
        }
        if let list = try r.strings("httpAllowList") {
            httpAllowList = try HTTPAllowList(list, path: r.keyPath("httpAllowList"))
        }
        if let v = r.value("firebase"), v != .null {
            firebase = try FirebaseConfiguration(ejson: v, path: r.keyPath("firebase"))
        }
        if let v = r.value("triggers") {
            // `{}` too: an empty Lua table (a script's `auth.dev.config{triggers = {}}`) converts to one.
            let items: [EJSON]
            switch v {
            case .array(let list): items = list
            case .document(let d) where d.isEmpty: items = []
            default: throw r.mismatch("triggers", "an array of triggers", v)
            }
            var names = Set<String>()
            for (i, item) in items.enumerated() {
                let trigger = try TriggerConfiguration(ejson: item, path: r.keyPath("triggers[\(i)]"))
                guard names.insert(trigger.name).inserted else {
                    throw ConfigError(key: r.keyPath("triggers[\(i)].name"), reason: "another trigger is named \"\(trigger.name)\"")
                }
                triggers.append(trigger)
            }
        }
        try r.finish()
    }

    /// The app as a config-file object (the dev API's GET).
    public var ejson: EJSON {
        var doc: EJSONDocument = [
            "id": .string(id),
            "accessTokenLifetimeSeconds": .int64(accessTokenLifetimeSeconds),
            "refreshTokenLifetimeSeconds": .int64(refreshTokenLifetimeSeconds),
            "tokenSigningAlgorithm": .string(tokenSigningAlgorithm),
        ]
        var p = EJSONDocument()
        p[ProviderType.anonymous] = ["enabled": .bool(providers.anonymous)]
        if let u = providers.userpass {
            p[ProviderType.userpass] = [
                "enabled": true, "autoConfirm": .bool(u.autoConfirm),
                "emailConfirmationUrl": u.emailConfirmationUrl.map(EJSON.string) ?? .null,
                "confirmEmailSubject": .string(u.confirmEmailSubject),
                "runConfirmationFunction": .bool(u.runConfirmationFunction),
                "confirmationFunctionName": u.confirmationFunctionName.map(EJSON.string) ?? .null,
                "resetPasswordUrl": u.resetPasswordUrl.map(EJSON.string) ?? .null,
                "resetPasswordSubject": .string(u.resetPasswordSubject),
                "runResetFunction": .bool(u.runResetFunction),
                "resetFunctionName": u.resetFunctionName.map(EJSON.string) ?? .null,
            ]
        } else {
            p[ProviderType.userpass] = ["enabled": false]
        }
        p[ProviderType.apiKey] = ["enabled": .bool(providers.apiKey)]
        if let f = providers.customFunction {
            p[ProviderType.customFunction] = ["enabled": true, "authFunctionName": .string(f.authFunctionName)]
        } else {
            p[ProviderType.customFunction] = ["enabled": false]
        }
        if let t = providers.customToken {
            p[ProviderType.customToken] = [
                "enabled": true, "signingAlgorithm": .string(t.signingAlgorithm),
                "signingKeys": .array(t.signingKeySources ?? t.signingKeys.map(EJSON.string)),
                "jwkURI": t.jwkURI.map(EJSON.string) ?? .null, "timeoutSeconds": .int64(t.timeoutSeconds),
                "audience": t.audience.map { .array($0.map(EJSON.string)) } ?? .null,
                "metadataFields": AppConfiguration.MetadataField.ejson(t.metadataFields),
            ]
        } else {
            p[ProviderType.customToken] = ["enabled": false]
        }
        p[ProviderType.phone] = providers.phone?.ejson ?? ["enabled": false]
        for (type, provider) in providers.oauth.sorted(by: { $0.key < $1.key }) { p[type] = provider.ejson }
        doc["providers"] = .document(p)
        doc["values"] = .document(values)
        doc["rateLimits"] = rateLimits.ejson
        doc["pluginLimits"] = pluginLimits.ejson
        doc["emailEnumerationProtection"] = .bool(emailEnumerationProtection)
        doc["oneAccountPerEmail"] = .bool(oneAccountPerEmail)
        doc["recentLoginSeconds"] = recentLoginSeconds.map(EJSON.int64) ?? .null
        doc["allowedRequestOrigins"] = allowedRequestOrigins.map { .array($0.entries.map(EJSON.string)) } ?? .null
        doc["hooks"] = hooks.ejson
        doc["mfa"] = mfa.ejson
        doc["webauthn"] = webauthn?.ejson ?? .null
        doc["triggers"] = .array(triggers.map(\.ejson))
        doc["httpAllowList"] = httpAllowList.ejson
        doc["firebase"] = firebase?.ejson ?? .null
        return .document(doc)
    }
}

extension AppConfiguration.Providers {
    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        self.init()
        // A `providers` object lists the providers the app has: one absent from it is off (its
        // routes answer 404). Only an app with no `providers` at all keeps the zero-config
        // ones (anonymous, email/password, API keys).
        anonymous = false
        userpass = nil
        apiKey = false
        if let v = r.value(ProviderType.anonymous) {
            var p = try ConfigReader(v, path: r.keyPath(ProviderType.anonymous))
            anonymous = try p.bool("enabled", default: true)
            try p.finish()
        }
        if let v = r.value(ProviderType.userpass) {
            var p = try ConfigReader(v, path: r.keyPath(ProviderType.userpass))
            userpass = try p.bool("enabled", default: true) ? try AppConfiguration.Userpass(reader: &p) : nil
            try p.finish()
        }
        if let v = r.value(ProviderType.apiKey) {
            var p = try ConfigReader(v, path: r.keyPath(ProviderType.apiKey))
            apiKey = try p.bool("enabled", default: true)
            try p.finish()
        }
        if let v = r.value(ProviderType.customFunction) {
            var p = try ConfigReader(v, path: r.keyPath(ProviderType.customFunction))
            var f = AppConfiguration.CustomFunction()
            let primary = try p.string("authFunctionName")
            let alias = try p.string("functionName")
            f.authFunctionName = primary ?? alias ?? f.authFunctionName
            customFunction = try p.bool("enabled", default: true) ? f : nil
            try p.finish()
        }
        if let v = r.value(ProviderType.customToken) {
            var p = try ConfigReader(v, path: r.keyPath(ProviderType.customToken))
            if try p.bool("enabled", default: true) {
                customToken = try AppConfiguration.CustomToken(reader: &p)
                try p.finish()
            } else {
                customToken = nil  // a disabled provider's other settings are not checked
            }
        }
        if let v = r.value(ProviderType.phone) {
            var p = try ConfigReader(v, path: r.keyPath(ProviderType.phone))
            phone = try p.bool("enabled", default: true) ? try AppConfiguration.Phone(reader: &p) : nil
            try p.finish()
        }
        for type in r.doc.keys where type.hasPrefix("oauth2-") {
            guard let v = r.value(type) else { continue }
            guard type.count > "oauth2-".count,
                type.utf8.allSatisfy({ $0 == 45 || $0 == 95 || (48...57).contains($0) || (97...122).contains($0) })
            else {
                throw ConfigError(key: r.keyPath(type), reason: "a provider key is oauth2- and a name of lowercase letters, digits, '-' and '_'")
            }
            var p = try ConfigReader(v, path: r.keyPath(type))
            if try p.bool("enabled", default: true) {
                oauth[type] = try OAuthProviderConfiguration(type: type, reader: &p)
                try p.finish()
            }
        }
        try r.finish()
    }
}

extension AppConfiguration.Userpass {
    init(reader p: inout ConfigReader) throws(ConfigError) {
        self.init()
        autoConfirm = try p.bool("autoConfirm", default: false)
        emailConfirmationUrl = try p.string("emailConfirmationUrl")
        confirmEmailSubject = try p.string("confirmEmailSubject") ?? confirmEmailSubject
        runConfirmationFunction = try p.bool("runConfirmationFunction", default: false)
        confirmationFunctionName = try p.string("confirmationFunctionName")
        resetPasswordUrl = try p.string("resetPasswordUrl")
        resetPasswordSubject = try p.string("resetPasswordSubject") ?? resetPasswordSubject
        runResetFunction = try p.bool("runResetFunction", default: false)
        resetFunctionName = try p.string("resetFunctionName")
        for (key, url) in [("emailConfirmationUrl", emailConfirmationUrl), ("resetPasswordUrl", resetPasswordUrl)] {
            if let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                throw ConfigError(key: p.keyPath(key), reason: "must be an http:// or https:// URL")
            }
        }
        if runConfirmationFunction && confirmationFunctionName == nil {
            throw ConfigError(key: p.keyPath("confirmationFunctionName"), reason: "missing: runConfirmationFunction is true")
        }
        if runResetFunction && resetFunctionName == nil {
            throw ConfigError(key: p.keyPath("resetFunctionName"), reason: "missing: runResetFunction is true")
        }
    }
}

extension AppConfiguration.CustomToken {
    init(reader p: inout ConfigReader) throws(ConfigError) {
        self.init()
        signingAlgorithm = try p.string("signingAlgorithm") ?? signingAlgorithm
        guard signingAlgorithm == "HS256" || signingAlgorithm == "RS256" else {
            throw ConfigError(key: p.keyPath("signingAlgorithm"), reason: "must be \"HS256\" or \"RS256\", got \"\(signingAlgorithm)\"")
        }
        let secrets = try p.secrets("signingKeys") ?? []
        signingKeys = secrets.map(\.value)
        signingKeySources = secrets.map(\.source)
        jwkURI = try p.string("jwkURI")
        timeoutSeconds = try p.integer("timeoutSeconds", in: 1...120) ?? timeoutSeconds
        audience = try p.strings("audience")
        metadataFields = try AppConfiguration.MetadataField.list(&p)
        if signingKeys.isEmpty && jwkURI == nil {
            throw ConfigError(key: p.keyPath("signingKeys"), reason: "missing: give signingKeys or jwkURI")
        }
        if signingAlgorithm == "HS256" {
            for (i, key) in signingKeys.enumerated() where key.utf8.count < 32 {
                throw ConfigError(key: p.keyPath("signingKeys[\(i)]"), reason: "an HS256 key must be at least 32 bytes")
            }
        }
    }
}
