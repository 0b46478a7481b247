// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Glibc
import Lua
import LuaEJSON

/// The auth bindings of a Lua state: the globals `app`, `credentials`, `auth` and the short
/// verbs (`login`, `linkIdentity`, `switchUser`, ...). The executable installs it into its
/// session.
public struct AuthScript: LuaLibrary {
    /// Where the default `app` lives.
    public struct Configuration: Sendable {
        /// The default app's id (`local` on the embedded server).
        public var appId: String
        public var server: ScriptServer
        /// Root of the client's user store; nil keeps users in memory.
        public var dataDirectory: String?
        public var requestTimeout: Duration
        /// The Firebase project the default app speaks Firebase Auth's API to (`--firebase`);
        /// nil: App Services' API.
        public var firebase: FirebaseProject?

        /// The default app speaks Firebase Auth's API as `project` (its id), to this
        /// configuration's server, as to an emulator (which takes any `apiKey`).
        public mutating func speakFirebase(project: String, apiKey: String?) {
            appId = project
            firebase = FirebaseProject(projectId: project, apiKey: apiKey ?? "fake-api-key", emulator: server.baseURL)
        }

        public init(appId: String = "local", server: ScriptServer, dataDirectory: String?, requestTimeout: Duration = .seconds(60)) {
            self.appId = appId
            self.server = server
            self.dataDirectory = dataDirectory
            self.requestTimeout = requestTimeout
        }
    }

    public let configuration: Configuration
    /// The default app (the global `app`).
    public let app: AppObject

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        app = AppObject(
            id: configuration.appId, server: configuration.server, storageDirectory: configuration.dataDirectory,
            requestTimeout: configuration.requestTimeout, firebase: configuration.firebase)
    }

    public func install(into state: LuaState) throws {
        for entry in globals.entries {
            switch entry {
            case .function(let name, let function): try state.setGlobal(name, .function(function))
            case .module(let name, let module): try state.setGlobal(name, .table(module.table))
            case .value(let name, let value, _): try state.setGlobal(name, value)
            }
        }
    }

    /// The globals, described: what `install` sets.
    public var globals: LuaModule {
        var globals = LuaModule(
            "",
            summary: "The REPL and scripts see the same globals. Names follow the Realm Swift SDK; the short verbs are the REPL's "
                + "vocabulary and act on `app` and its current user.")
        globals.add("app", .object(app), LuaDoc("App", "The default app: `local` on the embedded dev server, or `--app` on `--server`."))
        globals.add("credentials", CredentialsLibrary.module())
        globals.add("auth", AuthModule.module(configuration: configuration, app: app))
        for verb in Verbs.functions(app) { globals.add(verb) }
        return globals
    }

    /// Every class a script can hold an object of.
    public static let classes: [any LuaObject.Type] = [
        AppObject.self, UserObject.self, EmailPasswordAuthObject.self, APIKeysObject.self, FunctionsObject.self,
        CredentialsObject.self, AuthErrorObject.self, ProgressObject.self, AdminObject.self, EJSONValue.self, LuaTaskHandle.self,
        AuthenticatorObject.self,
    ]

    /// The tables of a known shape that the bindings return.
    static let shapes: [LuaAPI.Class] = [
        .shape(
            "Identity", "A table: one of `user.identities`.",
            fields: [
                ("id", "string", "the identity's id at its provider"), ("providerType", "string", "the provider (`local-userpass`)"),
                ("email", "string?", "when the provider gave one"),
            ]),
        .shape(
            "Session", "A table: one of `user:sessions()`.",
            fields: [
                ("id", "string", "the session's id"), ("deviceId", "string", "the device that opened it"),
                ("created", "integer", "Unix seconds"), ("lastUsed", "integer", "Unix seconds, to within a minute"),
                ("current", "boolean", "whether it is this client's"), ("providerType", "string?", "the provider it logged in with"),
            ]),
        .shape(
            "APIKey", "A table: one of a user's API keys.",
            fields: [
                ("id", "string", "the key's id"), ("name", "string", "its name"), ("disabled", "boolean", "whether it is disabled"),
                ("key", "string?", "the secret, only in what `create` returns"),
            ]),
        .shape(
            "Passkey", "A table: one of a user's passkeys.",
            fields: [
                ("id", "string", "the credential id, base64url"), ("name", "string", "its name"),
                ("createdAt", "integer", "Unix seconds"), ("lastUsedAt", "integer?", "Unix seconds, when it was last used"),
            ]),
        .shape(
            "Mail",
            "A table: one message of the dev server's outbox. For an app that speaks Firebase Auth's API, an action code of "
                + "the emulator's `oobCodes` (on authsh or on the Auth emulator): no subject, body or time; `token` is the "
                + "`oobCode`, `tokenId` empty.",
            fields: [
                ("to", "string", "the address"), ("subject", "string", "the subject"), ("body", "string", "the text"),
                ("kind", "string", "`confirm`, `reset` or `plugin`; over Firebase `signin`, `changeemail` and `recoveremail` too"),
                ("sentAt", "integer", "Unix seconds"),
                ("token", "string", "the link's token (empty in a plugin's mail)"),
                ("tokenId", "string", "the link's token id (empty in a plugin's mail)"),
                ("link", "string", "the link (empty in a plugin's mail)"),
                ("requestType", "string?", "over Firebase: the code's `requestType` (`PASSWORD_RESET`, `VERIFY_EMAIL`, ...)"),
            ]),
    ]

    /// The whole API, described: the reference, the editors' definition file and `.help` are
    /// made from it. Describing needs no server; nothing is requested.
    public static var api: LuaAPI {
        let script = AuthScript(Configuration(server: ScriptServer(url: "http://127.0.0.1:1"), dataDirectory: nil))
        return LuaAPI(globals: script.globals, classes: classes, shapes: shapes)
    }

    /// Builds the metatables of every class now, so that completion knows their members before
    /// a first object of each exists (`app.currentUser.apiKeys:` with no user logged in). For
    /// the REPL only: a script has no use for it, and it would add to every start-up.
    public func prepareCompletion(in state: LuaState) {
        for type in Self.classes { register(type, in: state) }
    }

    private func register<T: LuaObject>(_ type: T.Type, in state: LuaState) { state.registerClass(type) }

    /// `app local` and the current user's email (or `anonymous`, or its id), for the REPL's
    /// prompt. Reads the user store; no request.
    public var promptLabel: String {
        var label = app.id
        if let user = app.currentUser {
            label += " " + (user.profile.email ?? (user.isAnonymous ? "anonymous" : String(user.id.prefix(8))))
        }
        return label
    }
}
