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
    private static func method(_ body: @escaping @Sendable (UserObject, LuaCall) throws -> @Sendable () async throws -> [LuaValue])
        -> LuaClass<UserObject>.Method
    {
        { object, call in perform(call, try body(object, call)) }
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
        methods: [
            "linkIdentity": method { object, call in
                let credentials = try call.object(2, as: CredentialsObject.self).credentials
                return { [object] in [.object(object.app.object(try await object.user.linkIdentity(credentials: credentials)))] }
            },
            "unlink": method { object, call in
                let (type, id) = try identityArgument(call)
                return { [.object(object.app.object(try await object.user.unlink(providerType: type, id: id)))] }
            },
            "reauthenticate": method { object, call in
                let credentials = try call.object(2, as: CredentialsObject.self).credentials
                return { [.object(object.app.object(try await object.user.reauthenticate(with: credentials)))] }
            },
            "sessions": method { object, _ in { [.table(LuaTable(array: try await object.user.sessions().map(session)))] } },
            "revokeSession": method { object, call in
                let id = try sessionArgument(call)
                return {
                    try await object.user.revokeSession(id: id); return []
                }
            },
            "revokeOtherSessions": method { object, _ in { [.integer(Int64(try await object.user.revokeOtherSessions()))] } },
            "logOut": method { object, _ in
                {
                    try await object.user.logOut(); return []
                }
            },
            "remove": method { object, _ in
                {
                    try await object.user.remove(); return []
                }
            },
            "delete": method { object, _ in
                {
                    try await object.user.delete(); return []
                }
            },
            "refreshCustomData": method { object, _ in
                { [LuaEJSON.lua(try await object.user.refreshCustomData() ?? [:])] }
            },
            "refreshProfile": method { object, _ in
                { [LuaEJSON.lua(try await object.user.refreshProfile().data)] }
            },
            "callFunction": method { object, call in
                let name = try call.string(2)
                let arguments = try call.ejsonArguments(from: 3)
                return { [LuaEJSON.lua(try await object.user.callFunction(name: name, arguments: arguments))] }
            },
        ],
        properties: [
            "id": { .string(LuaString($0.user.id)) },
            "state": { .string(LuaString($0.user.state.rawValue)) },
            "isAnonymous": { .boolean($0.user.isAnonymous) },
            "identities": { identities($0.user) },
            "profile": { LuaEJSON.lua($0.user.profile.data) },
            "customData": { $0.user.customData.map(LuaEJSON.lua) ?? .nil },
            "accessToken": { $0.user.accessToken.map { .string(LuaString($0)) } ?? .nil },
            "refreshToken": { $0.user.refreshToken.map { .string(LuaString($0)) } ?? .nil },
            "deviceId": { .string(LuaString($0.user.deviceId)) },
            "providerTokens": { object in
                guard let tokens = object.user.providerTokens else { return .nil }
                var t = LuaTable()
                if let a = tokens.accessToken { t["accessToken"] = .string(LuaString(a)) }
                if let i = tokens.idToken { t["idToken"] = .string(LuaString(i)) }
                return .table(t)
            },
            "apiKeys": { .object(APIKeysObject(user: $0)) },
            "functions": { .object(FunctionsObject(user: $0)) },
        ],
        propertyClasses: ["apiKeys": "APIKeys", "functions": "Functions"],
        description: { $0.user.description })
}

/// `user.functions`: `user.functions.NAME(...)` calls the server function NAME.
final class FunctionsObject: LuaObject {
    let user: UserObject
    init(user: UserObject) { self.user = user }

    static let luaClass = LuaClass<FunctionsObject>(
        "Functions",
        description: { "Functions(\($0.user.user.id))" },
        fallback: { object, name in
            .function(
                LuaFunction(name) { call in
                    let arguments = try call.ejsonArguments(from: 1)
                    let user = object.user.user
                    return perform(call) { [LuaEJSON.lua(try await user.callFunction(name: name, arguments: arguments))] }
                })
        })
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

    private static func method(_ body: @escaping @Sendable (UserAPIKeys, LuaCall) throws -> @Sendable () async throws -> [LuaValue])
        -> LuaClass<APIKeysObject>.Method
    {
        { object, call in perform(call, try body(object.user.user.apiKeys, call)) }
    }

    static let luaClass = LuaClass<APIKeysObject>(
        "APIKeys",
        methods: [
            "create": method { keys, call in
                let name = try call.string(2)
                return { [table(try await keys.create(name: name))] }
            },
            "list": method { keys, _ in { [.table(LuaTable(array: try await keys.list().map(table)))] } },
            "fetch": method { keys, call in
                let id = try call.string(2)
                return { [table(try await keys.fetch(id: id))] }
            },
            "delete": method { keys, call in
                let id = try call.string(2)
                return {
                    try await keys.delete(id: id); return []
                }
            },
            "enable": method { keys, call in
                let id = try call.string(2)
                return {
                    try await keys.enable(id: id); return []
                }
            },
            "disable": method { keys, call in
                let id = try call.string(2)
                return {
                    try await keys.disable(id: id); return []
                }
            },
        ],
        description: { "APIKeys(\($0.user.user.id))" })
}
