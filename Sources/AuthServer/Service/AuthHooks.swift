// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Logging
import Lua
import LuaEJSON

/// The app's hooks (``HookConfiguration``) as the server runs them: inside the request, before
/// anything is written, under the plugins' deadline and memory cap.
///
/// `error("reason")` in a hook refuses: 403 `HookRefused` with the reason as the message. A
/// hook that fails otherwise (a limit, a value it may not return) refuses too (fail closed):
/// the client is told which hook failed and how, the server log gets the traceback, and the
/// audit log a `hook_failed` event.
struct AuthHooks {
    let functions: PluginFunctions
    let logger: Logger

    /// Claims a hook may not set: the token's own, and those JWT libraries give a meaning.
    static let reservedClaims: Set<String> = [
        "sub", "exp", "iat", "nbf", "jti", "aud", "iss", "typ", "user_data", "device_id", "auth_time", "amr",
    ]
    /// The most extra claims may take, as compact JSON.
    static let claimsLimit = 4096

    /// Who is logging in, as the hooks see it.
    struct Login {
        var user: UserRecord
        var identity: IdentityRecord
        var address: String
        var isNew: Bool
    }

    /// Runs `beforeUserCreated` for a user about to be written; returns the user with the
    /// profile `data` fields and custom data the hook set.
    func beforeUserCreated(_ login: Login, app: AppRuntime) async throws -> UserRecord {
        guard let name = app.config.hooks.beforeUserCreated else { return login.user }
        let result = try await run("beforeUserCreated", name, app: app, argument: Self.argument(login, app: app))
        var user = login.user
        switch result {
        case .nil, .boolean(true):
            return user
        case .table(let table):
            let returned: EJSON
            do {
                returned = try LuaEJSON.ejson(.table(table))
            } catch {
                throw failed("beforeUserCreated", name, app: app, why: "it returned a value that cannot be converted: \(error)")
            }
            guard case .document(let fields) = returned, fields.allSatisfy({ $0.0 == "data" || $0.0 == "custom_data" }) else {
                throw failed("beforeUserCreated", name, app: app, why: "it must return nil or {data = {...}, custom_data = {...}}")
            }
            let (data, customData) = try dataAndCustomData(fields, "beforeUserCreated", name, app: app)
            for (key, value) in data ?? [:] { user.data[key] = value }
            if let customData { user.customData = customData }
            return user
        default:
            throw failed("beforeUserCreated", name, app: app, why: "it must return nil or a table, not \(result.typeName)")
        }
    }

    /// Runs `beforeLogin`; returns when the login may go on.
    func beforeLogin(_ login: Login, app: AppRuntime) async throws {
        guard let name = app.config.hooks.beforeLogin else { return }
        var argument = Self.argument(login, app: app)
        argument["new_user"] = .bool(login.isNew)
        _ = try await run("beforeLogin", name, app: app, argument: argument)
    }

    /// Runs `sendSms` for a text to `phoneNumber`; false when the app has no such hook (it
    /// cannot send texts). Its return is ignored; `error(...)` refuses the request.
    func sendSms(to phoneNumber: String, code: String, message: String, address: String, app: AppRuntime) async throws -> Bool {
        guard let name = app.config.hooks.sendSms else { return false }
        let argument: EJSONDocument = [
            "phoneNumber": .string(phoneNumber), "code": .string(code), "message": .string(message), "app": .string(app.id),
            "address": .string(address), "api": .string(ClientAPI.current.rawValue),
        ]
        _ = try await run("sendSms", name, app: app, argument: argument)
        return true
    }

    /// Runs `migrateUser` for a password login of `email`, which no account has; nil when the
    /// app has no such hook or the hook brings no user in (``Passwords/MigratedUser``).
    func migrateUser(email: String, password: String, address: String, app: AppRuntime) async throws -> Passwords.MigratedUser? {
        guard let name = app.config.hooks.migrateUser else { return nil }
        let argument: EJSONDocument = [
            "email": .string(email), "password": .string(password), "app": .string(app.id), "address": .string(address),
            "api": .string(ClientAPI.current.rawValue),
        ]
        let result = try await run("migrateUser", name, app: app, argument: argument)
        switch result {
        case .nil, .boolean(false): return nil
        case .boolean(true): return Passwords.MigratedUser()
        case .table(let table):
            let returned: EJSON
            do { returned = try LuaEJSON.ejson(.table(table)) } catch {
                throw failed("migrateUser", name, app: app, why: "it returned a value that cannot be converted: \(error)")
            }
            guard case .document(let fields) = returned,
                fields.allSatisfy({ ["data", "custom_data", "emailVerified"].contains($0.0) })
            else {
                throw failed(
                    "migrateUser", name, app: app, why: "it must return nil, true or {data = {...}, custom_data = {...}, emailVerified = ...}")
            }
            var migrated = Passwords.MigratedUser()
            let (data, customData) = try dataAndCustomData(fields, "migrateUser", name, app: app)
            migrated.data = data ?? [:]
            migrated.customData = customData
            if let verified = fields["emailVerified"] {
                guard case .bool(let b) = verified else { throw failed("migrateUser", name, app: app, why: "its emailVerified must be a boolean") }
                migrated.emailVerified = b
            }
            return migrated
        default:
            throw failed("migrateUser", name, app: app, why: "it must return nil, true or a table, not \(result.typeName)")
        }
    }

    /// The extra claims `accessTokenClaims` gives the user's access tokens (none without it).
    /// The hook sees the user without identities (`{id, type, data, custom_data}`): a refresh
    /// reads none (reading them halved the refresh rate), and a hook sees the same at login.
    func accessTokenClaims(user: UserRecord, app: AppRuntime) async throws -> EJSONDocument {
        guard let name = app.config.hooks.accessTokenClaims else { return [:] }
        let argument: EJSONDocument = [
            "user": Self.user(user, identities: false), "app": .string(app.id), "api": .string(ClientAPI.current.rawValue),
        ]
        let result = try await run("accessTokenClaims", name, app: app, argument: argument)
        if case .nil = result { return [:] }
        let claims: EJSON
        do {
            claims = try LuaEJSON.ejson(result)
        } catch {
            throw failed("accessTokenClaims", name, app: app, why: "it returned a value that cannot be converted: \(error)")
        }
        guard case .document(let document) = claims else {
            throw failed("accessTokenClaims", name, app: app, why: "it must return a table of claims, not \(result.typeName)")
        }
        if let reserved = document.map(\.0).first(where: { Self.reservedClaims.contains($0) || $0.hasPrefix("baas_") }) {
            throw failed("accessTokenClaims", name, app: app, why: "claim '\(printable(reserved, limit: 40))' is reserved")
        }
        let size = EJSON.document(document).encodedString(.relaxed).utf8.count
        guard size <= Self.claimsLimit else {
            throw failed("accessTokenClaims", name, app: app, why: "its claims take \(size) bytes as JSON, over the limit of \(Self.claimsLimit)")
        }
        return document
    }

    /// Runs hook `key` (plugin function `name`): a Lua error is the hook's refusal, any other
    /// failure refuses as a failed hook. `context.user` is nil, as for every role function
    /// (only `functions/call` sets it); the user is in the argument.
    func run(_ key: String, _ name: String, app: AppRuntime, argument: EJSONDocument) async throws -> LuaValue {
        do {
            return try await functions.runPlugin(name, app: app, arguments: [LuaEJSON.lua(argument)])
        } catch let error as LuaError where error.code == .runtime {
            logger.info("hook refused", metadata: ["app": "\(app.id)", "hook": "\(key)", "plugin": "\(name)"])
            throw ServiceError(.hookRefused, PluginFunctions.withoutPosition(error.message))
        } catch {
            let reason = functions.pluginError(error, function: name, app: app)
            throw failed(key, name, app: app, why: (reason as? ServiceError)?.message ?? "\(reason)")
        }
    }

    /// A hook's returned `data` (profile fields) and `custom_data` (within the custom data
    /// limits), each nil when absent; a failed hook naming what is wrong otherwise.
    func dataAndCustomData(
        _ fields: EJSONDocument, _ key: String, _ name: String, app: AppRuntime
    ) throws -> (data: EJSONDocument?, customData: EJSONDocument?) {
        var data: EJSONDocument?, customData: EJSONDocument?
        if let value = fields["data"] {
            guard case .document(let d) = value else { throw failed(key, name, app: app, why: "its data must be a table of fields") }
            data = d
        }
        if let value = fields["custom_data"] {
            guard case .document(let d) = value else { throw failed(key, name, app: app, why: "its custom_data must be a table") }
            if let problem = CustomDataLimits.problem(d) { throw failed(key, name, app: app, why: "its custom_data: \(problem)") }
            customData = d
        }
        return (data, customData)
    }

    /// The refusal of a hook that failed, logged and audited.
    func failed(_ key: String, _ name: String, app: AppRuntime, why: String) -> ServiceError {
        logger.warning("hook failed: \(why)", metadata: ["app": "\(app.id)", "hook": "\(key)", "plugin": "\(name)"])
        AuditTrail.record("hook_failed", app: app.id, outcome: "failure", detail: "\(key) (\(name)): \(why)")
        return ServiceError(.hookRefused, "refused: the \(key) hook failed: \(why)")
    }

    /// The argument of the login hooks: `{user, identity, provider, address, app}`.
    private static func argument(_ login: Login, app: AppRuntime) -> EJSONDocument {
        [
            "user": user(login.user), "identity": identity(login.identity), "provider": .string(login.identity.providerType),
            "address": .string(login.address), "app": .string(app.id), "api": .string(ClientAPI.current.rawValue),
        ]
    }

    /// A user as hooks see it: `{id, type, identities, data, custom_data}` (App Services' shape);
    /// without `identities` when `identities` is false.
    static func user(_ user: UserRecord, identities: Bool = true) -> EJSON {
        var doc: EJSONDocument = ["id": .string(user.id), "type": .string(user.type), "data": .document(user.data)]
        if identities { doc["identities"] = .array(user.identities.map(identity)) }
        if let custom = user.customData { doc["custom_data"] = .document(custom) }
        return .document(doc)
    }

    /// An identity: `{id, provider_type, provider_id, provider_data, email}` (`email` when the
    /// provider vouches for it).
    static func identity(_ identity: IdentityRecord) -> EJSON {
        var doc: EJSONDocument = [
            "id": .string(identity.externalId), "provider_type": .string(identity.providerType),
            "provider_id": .string(identity.providerId), "provider_data": .document(identity.data),
        ]
        if let email = identity.email { doc["email"] = .string(email) }
        return .document(doc)
    }
}
