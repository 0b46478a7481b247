// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// A `User` as Lua sees it. Its properties read the client's record each time, so a handle
/// kept in a variable shows the user's state now.
public final class UserObject: LuaObject {
    public let user: User
    let app: AppObject
    init(_ user: User, app: AppObject) {
        self.user = user
        self.app = app
    }

    /// A method that runs `body` as the binding's async work and returns its values.
    private static func method(
        _ name: String, _ type: String, _ summary: String,
        _ body: @escaping @Sendable (UserObject, LuaCall) throws -> @Sendable () async throws -> [LuaValue]
    ) -> LuaMember<UserObject> {
        .method(name, type, summary) { object, call in perform(call, try body(object, call)) }
    }

    /// A method of one part of the user (its second factors, its passkeys): `body` gets that
    /// part and the call, and returns the async work.
    static func method<Part>(
        _ name: String, _ type: String, _ summary: String, on part: @escaping @Sendable (User) -> Part,
        _ body: @escaping @Sendable (Part, LuaCall) throws -> @Sendable () async throws -> [LuaValue]
    ) -> LuaMember<UserObject> {
        .method(name, type, summary) { object, call in perform(call, try body(part(object.user), call)) }
    }

    static func identities(_ user: User) -> LuaValue {
        .table(
            LuaTable(
                array: user.identities.map { identity in
                    var t = LuaTable(["id": .string(LuaString(identity.id)), "providerType": .string(LuaString(identity.providerType))])
                    if let email = identity.email { t["email"] = .string(LuaString(email)) }
                    return .table(t)
                }))
    }

    /// `{id, deviceId, created, lastUsed, current, providerType}`.
    static func session(_ s: UserSession) -> LuaValue {
        var t = LuaTable([
            "id": .string(LuaString(s.id)), "deviceId": .string(LuaString(s.deviceId)),
            "created": .integer(s.created), "lastUsed": .integer(s.lastUsed), "current": .boolean(s.isCurrent),
        ])
        if let type = s.providerType { t["providerType"] = .string(LuaString(type)) }
        return .table(t)
    }

    /// `user:unlink(identity)` takes an entry of `user.identities`, or (providerType, id).
    static func identityArgument(_ call: LuaCall) throws -> (type: String, id: String) {
        if call.isTable(2) {
            let t = try call.table(2)
            return (try t.string("providerType", argument: 2), try t.string("id", argument: 2))
        }
        return (try call.string(2), try call.string(3))
    }

    /// `user:revokeSession(s)` takes an entry of `user:sessions()`, or its id.
    static func sessionArgument(_ call: LuaCall) throws -> String {
        call.isTable(2) ? try call.table(2).string("id", argument: 2) : try call.string(2)
    }

    public static let luaClass = LuaClass<UserObject>(
        "User",
        summary: "A user this client knows. Two handles on one user are `==`, and properties read the client's record each time, "
            + "so a handle kept in a variable shows the user's state now. `tostring`: `User(6b01..., alice@example.com, loggedIn)`.",
        members: [
            .property("id", "string", "the user's id") { .string(LuaString($0.user.id)) },
            .property("state", "string", "`loggedIn`, `loggedOut` or `removed`") { .string(LuaString($0.user.state.rawValue)) },
            .property("isAnonymous", "boolean", "true while its only identities are anonymous") { .boolean($0.user.isAnonymous) },
            .property("identities", "Identity[]", "its identities in link order") { identities($0.user) },
            .property("profile", "table", "the profile's data (`email`, `name`, ...) as of the last login, link or `refreshProfile`") {
                LuaEJSON.lua($0.user.profile.data)
            },
            .property("customData", "table?", "the access token's `user_data`") { $0.user.customData.map(LuaEJSON.lua) ?? .nil },
            .property(
                "claims", "table?",
                "the access token's claims (`sub`, `exp`, `user_data`, ... and those of the app's `accessTokenClaims` hook), as the server wrote them"
            ) { $0.user.accessTokenClaims.map(LuaEJSON.lua) ?? .nil },
            .property("accessToken", "string?", "the access token (a secret)") { $0.user.accessToken.map { .string(LuaString($0)) } ?? .nil },
            .property("refreshToken", "string?", "the refresh token (a secret)") {
                $0.user.refreshToken.map { .string(LuaString($0)) } ?? .nil
            },
            .property("deviceId", "string", "the device id the server gave this client") { .string(LuaString($0.user.deviceId)) },
            .property(
                "providerTokens", "{accessToken: string?, idToken: string?}?",
                "the identity provider's tokens from the last sign-in with a provider that returns them (`returnProviderTokens`)"
            ) { object in
                guard let tokens = object.user.providerTokens else { return .nil }
                var t = LuaTable()
                if let a = tokens.accessToken { t["accessToken"] = .string(LuaString(a)) }
                if let i = tokens.idToken { t["idToken"] = .string(LuaString(i)) }
                return .table(t)
            },
            .property("apiKeys", "APIKeys", "the user's API keys (not for anonymous users)") { .object(APIKeysObject(user: $0)) },
            .property("functions", "Functions", "the server's functions, called as this user") { .object(FunctionsObject(user: $0)) },
            method(
                "linkIdentity", "(creds: Credentials): User",
                "links another identity (or a conflict's `err.credential`); returns the user"
            ) { object, call in
                let credentials = try call.object(2, as: CredentialsObject.self).credentials
                return { [object] in [.object(object.app.object(try await object.user.linkIdentity(credentials: credentials)))] }
            },
            .method(
                "unlink", "(identity: Identity): User",
                "removes one identity; an email/password identity takes its account with it, and the last one stays "
                    + "(`CannotUnlinkLastIdentity`); returns the user",
                overloads: ["(providerType: string, id: string): User"]
            ) { object, call in
                let (type, id) = try identityArgument(call)
                return perform(call) { [.object(object.app.object(try await object.user.unlink(providerType: type, id: id)))] }
            },
            method(
                "reauthenticate", "(creds: Credentials): User",
                "logs in again as this user: same object, new tokens, the old session ended; another user's credentials raise "
                    + "`UserMismatch` and change nothing"
            ) { object, call in
                let credentials = try call.object(2, as: CredentialsObject.self).credentials
                return { [.object(object.app.object(try await object.user.reauthenticate(with: credentials)))] }
            },
            method("sessions", "(): Session[]", "the user's sessions, oldest first") { object, _ in
                { [.table(LuaTable(array: try await object.user.sessions().map(session)))] }
            },
            .method(
                "revokeSession", "(session: Session|string)",
                "ends one session (an entry of `user:sessions()`, or its id): "
                    + "its refresh and access tokens stop working"
            ) { object, call in
                let id = try sessionArgument(call)
                return perform(call) {
                    try await object.user.revokeSession(id: id); return []
                }
            },
            method("revokeOtherSessions", "(): integer", "ends every session but this one; returns how many") { object, _ in
                { [.integer(Int64(try await object.user.revokeOtherSessions()))] }
            },
            method("logOut", "()", "logs out (an anonymous user is removed)") { object, _ in
                {
                    try await object.user.logOut(); return []
                }
            },
            method("remove", "()", "logs out and forgets the user here") { object, _ in
                {
                    try await object.user.remove(); return []
                }
            },
            method("delete", "()", "deletes the user on the server and here") { object, _ in
                {
                    try await object.user.delete(); return []
                }
            },
            method("refreshProfile", "(): table", "fetches the profile's data; returns it") { object, _ in
                { [LuaEJSON.lua(try await object.user.refreshProfile().data)] }
            },
            method("refreshCustomData", "(): table", "fetches a new access token and returns its custom data") { object, _ in
                { [LuaEJSON.lua(try await object.user.refreshCustomData() ?? [:])] }
            },
            method(
                "callFunction", "(name: string, ...: any): any",
                "calls the server function `name`; arguments and result cross as EJSON"
            ) { object, call in
                let name = try call.string(2)
                let arguments = try call.ejsonArguments(from: 3)
                return { [LuaEJSON.lua(try await object.user.callFunction(name: name, arguments: arguments))] }
            },
        ] + SecondFactorBindings.userMembers() + PasskeyBindings.userMembers() + FirebaseBindings.userMembers(),
        description: { $0.user.description })
}

/// `user.functions`: `user.functions.NAME(...)` calls the server function NAME.
final class FunctionsObject: LuaObject {
    let user: UserObject
    init(user: UserObject) { self.user = user }

    static let luaClass = LuaClass<FunctionsObject>(
        "Functions",
        summary: "`user.functions`: `user.functions.greet(\"Ada\")` is `user:callFunction(\"greet\", \"Ada\")`.", members: [],
        description: { "Functions(\($0.user.user.id))" },
        fallback: (
            "NAME", LuaDoc("(...: any): any", "calls the server function NAME as this user"),
            { object, name in
                .function(
                    LuaFunction(name) { call in
                        let arguments = try call.ejsonArguments(from: 1)
                        let user = object.user.user
                        return perform(call) { [LuaEJSON.lua(try await user.callFunction(name: name, arguments: arguments))] }
                    })
            }
        ))
}

/// `user.apiKeys`: the user's API keys. Keys are tables `{id, name, disabled, key}`; `key`
/// (the secret) only in what `create` returns.
final class APIKeysObject: LuaObject {
    let user: UserObject
    init(user: UserObject) { self.user = user }

    static func table(_ key: UserAPIKey) -> LuaValue {
        var t = LuaTable(["id": .string(LuaString(key.id)), "name": .string(LuaString(key.name)), "disabled": .boolean(key.disabled)])
        if let secret = key.key { t["key"] = .string(LuaString(secret)) }
        return .table(t)
    }

    private static func method(
        _ name: String, _ type: String, _ summary: String,
        _ body: @escaping @Sendable (UserAPIKeys, LuaCall) throws -> @Sendable () async throws -> [LuaValue]
    ) -> LuaMember<APIKeysObject> {
        .method(name, type, summary) { object, call in perform(call, try body(object.user.user.apiKeys, call)) }
    }

    static let luaClass = LuaClass<APIKeysObject>(
        "APIKeys",
        summary: "`user.apiKeys`: the user's API keys (not for anonymous users).",
        members: [
            method("create", "(name: string): APIKey", "a new key; its `key`, the secret, is shown only now") { keys, call in
                let name = try call.string(2)
                return { [table(try await keys.create(name: name))] }
            },
            method("list", "(): APIKey[]", "the user's keys, without secrets") { keys, _ in
                { [.table(LuaTable(array: try await keys.list().map(table)))] }
            },
            method("fetch", "(id: string): APIKey", "one key, without its secret") { keys, call in
                let id = try call.string(2)
                return { [table(try await keys.fetch(id: id))] }
            },
            method("enable", "(id: string)", "lets the key log in again") { keys, call in
                let id = try call.string(2)
                return {
                    try await keys.enable(id: id); return []
                }
            },
            method("disable", "(id: string)", "stops the key logging in") { keys, call in
                let id = try call.string(2)
                return {
                    try await keys.disable(id: id); return []
                }
            },
            method("delete", "(id: string)", "deletes the key") { keys, call in
                let id = try call.string(2)
                return {
                    try await keys.delete(id: id); return []
                }
            },
        ],
        description: { "APIKeys(\($0.user.user.id))" })
}
