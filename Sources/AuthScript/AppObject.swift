// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import Synchronization

/// An `App` as Lua sees it (`app`, or what `auth.app{}` returns). The client app is opened on
/// first use, so a script that never touches auth pays nothing for it.
public final class AppObject: LuaObject {
    public let id: String
    public let server: ScriptServer
    let dev: DevAPI
    private let open: @Sendable () throws(AuthClientError) -> App
    private let opened = Mutex<App?>(nil)
    /// One `User` object per user id, so that two handles on one user are `==` in Lua.
    private let userObjects = Mutex<[String: UserObject]>([:])

    /// - Parameters:
    ///   - storageDirectory: where users are kept (nil: in memory only).
    ///   - firebase: the Firebase project the app speaks Firebase Auth's API to (its id is
    ///     `id`); nil: App Services' API.
    public init(
        id: String, server: ScriptServer, storageDirectory: String?, requestTimeout: Duration = .seconds(60),
        firebase: FirebaseProject? = nil
    ) {
        self.id = id
        self.server = server
        dev = DevAPI(server: server, appId: id, requestTimeout: requestTimeout, firebaseProject: firebase?.projectId)
        open = { () throws(AuthClientError) -> App in
            if let firebase {
                return try App(
                    firebase: firebase, requestTimeout: requestTimeout, storageDirectory: storageDirectory,
                    transport: ScriptTransport(server: server))
            }
            return try App(
                id: id,
                configuration: .init(
                    baseURL: server.baseURL, requestTimeout: requestTimeout,
                    storageDirectory: storageDirectory),
                transport: ScriptTransport(server: server))
        }
    }

    /// The client app (opening its user store on first use).
    public func app() throws(AuthClientError) -> App {
        try opened.withLock { (app: inout App?) throws(AuthClientError) -> App in
            if let app { return app }
            let new = try open()
            app = new
            return new
        }
    }

    /// The Lua object of `user` (the same one each time).
    func object(_ user: User) -> UserObject {
        userObjects.withLock { objects in
            if let known = objects[user.id] { return known }
            let new = UserObject(user, app: self)
            objects[user.id] = new
            return new
        }
    }

    /// The current user, or nil; no request.
    public var currentUser: User? { (try? app())?.currentUser }

    /// A user given as a `User` object or an id.
    func user(_ call: LuaCall, _ index: Int32) throws -> User {
        if let object = try? call.object(index, as: UserObject.self) { return object.user }
        guard let id = try? call.string(index) else { throw call.typeError(index, expected: "User or user id") }
        guard let user = try app().allUsers[id] else {
            throw ScriptError(
                AuthClientError(code: AuthClientError.userNotFound, message: "no user with id \(id) is known here"),
                position: call.position)
        }
        return user
    }

    /// `signInMethods(email)`: the providers the holder of `email` signs in with, as a list.
    static func signInMethods(_ app: AppObject, _ call: LuaCall, emailAt index: Int32) throws -> LuaReturn {
        let email = try call.string(index)
        let client = try app.app()
        return perform(call) {
            [.table(LuaTable(array: try await client.signInMethods(email: email).map { .string(LuaString($0)) }))]
        }
    }

    /// `where the server is`, for banners and `tostring`.
    public var serverName: String { server.isEmbedded ? "embedded" : server.baseURL }

    public static let luaClass = LuaClass<AppObject>(
        "App",
        summary: "An app on a server, with the users this client keeps for it: `app` (app `local` on the embedded dev server, "
            + "or `--app` on `--server`), or `auth.app{...}`. `tostring`: `App(local, embedded)`.",
        members: [
            .property("id", "string", "the app's id") { .string(LuaString($0.id)) },
            .property("server", "string", "`\"embedded\"` or the server's URL") { .string(LuaString($0.serverName)) },
            .property("currentUser", "User?", "as `whoami()`, on this app") { app in
                try app.app().currentUser.map { .object(app.object($0)) } ?? .nil
            },
            .property("allUsers", "User[]", "as `users()`, on this app") { app in
                .table(LuaTable(array: try app.app().usersInOrder.map { .object(app.object($0)) }))
            },
            .property("emailPasswordAuth", "EmailPasswordAuth", "email/password accounts") { .object(EmailPasswordAuthObject(app: $0)) },
            .method("login", "(creds: Credentials): User", "as `login`, on this app") { app, call in
                try Verbs.login(app, call, credentialsAt: 2)
            },
            .method("signIn", SignInBinding.type, "as `signIn`, on this app") { app, call in try SignInBinding.signIn(app, call, from: 2) },
            .method("switchUser", "(user: User|string): User", "as `switchUser`, on this app") { app, call in
                try Verbs.switchUser(app, call, userAt: 2)
            },
            .method("signInMethods", "(email: string): string[]", "as `auth.signInMethods`, on this app") { app, call in
                try AppObject.signInMethods(app, call, emailAt: 2)
            },
            .method("sendPhoneCode", SecondFactorBindings.sendPhoneCodeType, "as `sendPhoneCode`, on this app") { app, call in
                try SecondFactorBindings.sendPhoneCode(app, call, from: 2)
            },
        ],
        description: { "App(\($0.id), \($0.serverName))" })
}

/// `app.emailPasswordAuth`: registration, confirmation and password reset.
final class EmailPasswordAuthObject: LuaObject {
    let app: AppObject
    init(app: AppObject) { self.app = app }

    /// A method that runs `operation`; it takes its strings in order or as one table.
    private static func method(_ name: String, _ operation: EmailPasswordOperation, _ summary: String) -> LuaMember<EmailPasswordAuthObject> {
        let parameters = operation.names.map { "\($0): string" }.joined(separator: ", ")
        return .method(name, "(\(parameters))", summary, overloads: ["(options: {\(parameters)})"]) { object, call in
            try operation.run(object.app, call, from: 2)
        }
    }

    static let luaClass = LuaClass<EmailPasswordAuthObject>(
        "EmailPasswordAuth",
        summary: "`app.emailPasswordAuth`: registration, confirmation and passwords. Each method returns nothing and raises on failure.",
        members: [
            method("registerUser", .register, "registers an account (the server mails a confirmation)"),
            method("confirmUser", .confirm, "confirms an account with the token of its mail"),
            method(
                "resendConfirmationEmail", EmailPasswordOperation(["email"]) { try await $0.resendConfirmationEmail(email: $1[0]) },
                "mails the confirmation again"),
            method(
                "retryCustomConfirmation", EmailPasswordOperation(["email"]) { try await $0.retryCustomConfirmation(email: $1[0]) },
                "runs the confirmation function again"),
            method(
                "sendResetPasswordEmail", EmailPasswordOperation(["email"]) { try await $0.sendResetPasswordEmail(email: $1[0]) },
                "mails a password reset"),
            method("resetPassword", .resetPassword, "sets a password with the token of a reset mail"),
            .method(
                "callResetPasswordFunction", "(email: string, password: string, ...: any)",
                "as `callResetFunction`, on this app", overloads: ["(reset: {email: string, password: string, args: any[]?})"]
            ) { object, call in try Verbs.callResetFunction(object.app, call, from: 2) },
            method(
                "changePassword",
                EmailPasswordOperation(["password", "newPassword"]) { try await $0.changePassword(from: $1[0], to: $1[1]) },
                "the current user's password: the old one is checked as a login checks it, and the user's other sessions end"),
            FirebaseBindings.sendSignInLink,
        ],
        description: { "EmailPasswordAuth(\($0.app.id))" })
}

/// One email/password request: the string arguments it reads (a table or in order) and what it
/// does with them. The methods of `app.emailPasswordAuth` and the short verbs share these.
struct EmailPasswordOperation: Sendable {
    let names: [String]
    let body: @Sendable (EmailPasswordAuth, [String]) async throws -> Void

    init(_ names: [String], _ body: @escaping @Sendable (EmailPasswordAuth, [String]) async throws -> Void) {
        self.names = names
        self.body = body
    }

    /// Reads the arguments from `index` on and runs the request as the binding's async work.
    func run(_ app: AppObject, _ call: LuaCall, from index: Int32) throws -> LuaReturn {
        let values = try call.strings(names, from: index)
        let auth = try app.app().emailPasswordAuth
        let body = self.body
        return perform(call) {
            try await body(auth, values); return []
        }
    }

    static let register = EmailPasswordOperation(["email", "password"]) { try await $0.registerUser(email: $1[0], password: $1[1]) }
    static let confirm = EmailPasswordOperation(["token", "tokenId"]) { try await $0.confirmUser(token: $1[0], tokenId: $1[1]) }
    static let resetPassword = EmailPasswordOperation(["token", "tokenId", "password"]) {
        try await $0.resetPassword(token: $1[0], tokenId: $1[1], password: $1[2])
    }
}
