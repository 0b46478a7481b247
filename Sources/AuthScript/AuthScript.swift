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
            requestTimeout: configuration.requestTimeout)
    }

    public func install(into state: LuaState) throws {
        try state.setGlobal("app", .object(app))
        try state.setGlobal("credentials", .table(CredentialsLibrary.table()))
        try state.setGlobal("auth", .table(AuthModule.table(configuration: configuration, app: app)))
        for verb in Verbs.functions(app) { try state.register(verb) }
    }

    /// Builds the metatables of every class now, so that completion knows their members before
    /// a first object of each exists (`app.currentUser.apiKeys:` with no user logged in). For
    /// the REPL only: a script has no use for it, and it would add to every start-up.
    public func prepareCompletion(in state: LuaState) {
        for type in [
            AppObject.self, UserObject.self, EmailPasswordAuthObject.self, APIKeysObject.self, FunctionsObject.self,
            CredentialsObject.self, AuthErrorObject.self, ProgressObject.self, EJSONValue.self,
        ] as [any LuaObject.Type] {
            register(type, in: state)
        }
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
