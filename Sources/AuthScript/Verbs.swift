// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// The short verbs of the REPL (`login`, `linkIdentity`, ...): each acts on one app and its
/// current user. The object API's methods share these bodies.
enum Verbs {
    /// Every verb, bound to `app`.
    static func functions(_ app: AppObject) -> [LuaFunction] {
        [
            LuaFunction("login", "(creds: Credentials): User", "Logs in; the user becomes current.") { call in
                try login(app, call, credentialsAt: 1)
            },
            SignInBinding.function(app, name: "signIn"),
            LuaFunction(
                "linkIdentity", "(creds: Credentials): User",
                "Links the credentials' identity to the current user (`ClientUserNotLoggedIn` when there is none); returns it."
            ) { call in
                let credentials = try call.object(1, as: CredentialsObject.self).credentials
                let user = try current(app, call)
                return perform(call) { [.object(app.object(try await user.linkIdentity(credentials: credentials)))] }
            },
            LuaFunction(
                "register", "(email: string, password: string)", "Registers an email/password account (the server mails a confirmation).",
                overloads: ["(account: {email: string, password: string})"]
            ) { call in try EmailPasswordOperation.register.run(app, call, from: 1) },
            LuaFunction(
                "confirm", "(token: string, tokenId: string)", "Confirms an account; a mail from `outbox` works as the argument.",
                overloads: ["(mail: {token: string, tokenId: string})"]
            ) { call in try EmailPasswordOperation.confirm.run(app, call, from: 1) },
            LuaFunction(
                "resetPassword", "(token: string, tokenId: string, password: string)", "Sets a password with the token of a reset mail.",
                overloads: ["(reset: {token: string, tokenId: string, password: string})"]
            ) { call in try EmailPasswordOperation.resetPassword.run(app, call, from: 1) },
            LuaFunction(
                "callResetFunction", "(email: string, password: string, ...: any)",
                "Runs the server's reset function with the arguments after its request.",
                overloads: ["(reset: {email: string, password: string, args: any[]?})"]
            ) { call in try callResetFunction(app, call, from: 1) },
            LuaFunction(
                "switchUser", "(user: User|string): User",
                "Makes a logged-in user (or the user with that id) current: `ClientUserNotLoggedIn` for a logged-out one, "
                    + "`ClientUserNotFound` for an unknown id."
            ) { call in try switchUser(app, call, userAt: 1) },
            LuaFunction(
                "logout", "(user?: User|string)", "Logs out the current (or the given) user; an anonymous user is removed."
            ) { call in
                let user = call.isNil(1) ? try current(app, call) : try app.user(call, 1)
                return perform(call) {
                    try await user.logOut(); return []
                }
            },
            LuaFunction("whoami", "(): User?", "The current user, or nil; no request.") { _ in
                .one(try app.app().currentUser.map { .object(app.object($0)) } ?? .nil)
            },
            LuaFunction(
                "users", "(): User[]", "The users this client knows, logged in or out (removed ones are gone), in order; no request."
            ) { _ in .one(.table(LuaTable(array: try app.app().usersInOrder.map { .object(app.object($0)) }))) },
            AuthModule.outbox(app.dev, name: "outbox"),
            LuaFunction("sendPhoneCode", SecondFactorBindings.sendPhoneCodeType, SecondFactorBindings.sendPhoneCodeSummary) { call in
                try SecondFactorBindings.sendPhoneCode(app, call, from: 1)
            },
        ]
    }

    static func login(_ app: AppObject, _ call: LuaCall, credentialsAt index: Int32) throws -> LuaReturn {
        let credentials = try call.object(index, as: CredentialsObject.self).credentials
        let client = try app.app()
        return perform(call) { [.object(app.object(try await client.login(credentials: credentials)))] }
    }

    static func switchUser(_ app: AppObject, _ call: LuaCall, userAt index: Int32) throws -> LuaReturn {
        let user = try app.user(call, index)
        do { try app.app().switchUser(to: user) } catch { throw ScriptError(error, position: call.position) }
        return .one(.object(app.object(user)))
    }

    /// `callResetFunction{email=, password=, args={...}}`: the server's reset function, with
    /// `args` spread after its request.
    static func callResetFunction(_ app: AppObject, _ call: LuaCall, from index: Int32) throws -> LuaReturn {
        let values = try call.strings(["email", "password"], from: index)
        let arguments: [EJSON]
        if call.isTable(index) {
            arguments = try call.ejsonArray(try call.table(index)["args"], field: "args", index: index)
        } else {
            arguments = try call.ejsonArguments(from: index + 2)
        }
        let auth = try app.app().emailPasswordAuth
        return perform(call) {
            try await auth.callResetPasswordFunction(email: values[0], password: values[1], arguments: arguments)
            return []
        }
    }

    /// The current user, or `ClientUserNotLoggedIn` naming the verb.
    static func current(_ app: AppObject, _ call: LuaCall) throws -> User {
        guard let user = try app.app().currentUser else {
            throw ScriptError(
                AuthClientError(code: AuthClientError.userNotLoggedIn, message: "\(call.name): no user is logged in (log in first)"),
                position: call.position)
        }
        return user
    }
}
