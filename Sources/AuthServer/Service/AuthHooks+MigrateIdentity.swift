// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import LuaEJSON

extension AuthHooks {
    /// What `migrateIdentity` brings in for an identity no user has: the user's id (nil: a new
    /// one), and the profile fields and custom data a new user starts with.
    struct MigratedIdentity: Sendable {
        var id: String?
        var data: EJSONDocument = [:]
        var customData: EJSONDocument?
    }

    /// Whether a login by `providerType` asks `migrateIdentity` about an identity no user has:
    /// the providers that prove an identity of another system (a custom function, a custom JWT,
    /// OAuth and OpenID Connect); email/password has `migrateUser`, and anonymous users, API
    /// keys and passkeys are authsh's own.
    static func asksMigrateIdentity(_ providerType: String) -> Bool {
        ![ProviderType.userpass, ProviderType.anonymous, ProviderType.apiKey, PasskeyService.provider].contains(providerType)
    }

    /// Runs `migrateIdentity` for `identity`, which no user has; nil when the app has no such
    /// hook or the hook returns nil. `{id, data, custom_data}`, each optional.
    func migrateIdentity(_ identity: IdentityRecord, address: String, app: AppRuntime) async throws -> MigratedIdentity? {
        guard let name = app.config.hooks.migrateIdentity else { return nil }
        let argument: EJSONDocument = [
            "provider": .string(identity.providerType), "identity": Self.identity(identity), "address": .string(address),
            "app": .string(app.id), "api": .string(ClientAPI.current.rawValue),
        ]
        let result = try await run("migrateIdentity", name, app: app, argument: argument)
        if case .nil = result { return nil }
        let why = "it must return nil or {id = \"...\", data = {...}, custom_data = {...}}"
        let returned: EJSON
        do { returned = try LuaEJSON.ejson(result) } catch { throw failed("migrateIdentity", name, app: app, why: why) }
        guard case .document(let fields) = returned, fields.allSatisfy({ ["id", "data", "custom_data"].contains($0.0) }) else {
            throw failed("migrateIdentity", name, app: app, why: why)
        }
        var migrated = MigratedIdentity()
        if let id = fields["id"] {
            guard let text = id.stringValue, FirebaseIdentities.isValidUid(text) else {
                throw failed("migrateIdentity", name, app: app, why: "its id must be 1 to 128 bytes without control characters")
            }
            migrated.id = text
        }
        let (data, customData) = try dataAndCustomData(fields, "migrateIdentity", name, app: app)
        migrated.data = data ?? [:]
        migrated.customData = customData
        return migrated
    }
}
