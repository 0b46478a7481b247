// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The plugin functions an app runs inside its auth requests: app key `hooks`.
///
/// ```json
/// "hooks": { "beforeUserCreated": "onlyOurDomain", "beforeLogin": "notBanned", "accessTokenClaims": "roles" }
/// ```
///
/// Each names a function a plugin exports; a hook left out does not run. Hooks are the app's
/// own functions: users cannot call them through `functions/call`.
public struct HookConfiguration: Sendable, Equatable {
    /// Runs before a new user is written (its first login with any provider), with the
    /// user-to-be: `error(...)` refuses the login, a returned table sets the user's profile
    /// `data` fields and custom data.
    public var beforeUserCreated: String?
    /// Runs before every login is answered (after ``beforeUserCreated`` for a new user), with the
    /// user: `error(...)` refuses it.
    public var beforeLogin: String?
    /// Returns extra claims for the user's access tokens, at every login, link and refresh.
    public var accessTokenClaims: String?
    /// Sends a text message (a phone sign-in's code) through the app's SMS provider, with
    /// `{phoneNumber, code, message, app, address, api}`; `error(...)` refuses the request.
    public var sendSms: String?
    /// Runs when a password login names an email no account has, with
    /// `{email, password, app, address, api}`: it may check them against the system users move
    /// in from (`context.http`, allow-listed) and return `{data = {...}, custom_data = {...},
    /// emailVerified = true}` (or `true`) to make that account with this password, or nil to
    /// refuse the login as any unknown email is. The password is never logged.
    public var migrateUser: String?
    /// Runs when a login proves an identity no user has (a custom function's, a custom JWT's,
    /// an OAuth or OpenID Connect provider's; not email/password, anonymous or API keys), with
    /// `{provider, identity, address, app, api}`: it may look the person up in the system users
    /// move in from and return `{id = "...", data = {...}, custom_data = {...}}`: the user to
    /// make (with that id, as imports keep ids), or to join when a user has that id already
    /// (one imported without this identity). nil: a new user, as without the hook.
    public var migrateIdentity: String?

    public init() {}

    /// The hooks' config keys and the functions they name, in a fixed order.
    var named: [(key: String, function: String)] {
        [
            ("beforeUserCreated", beforeUserCreated), ("beforeLogin", beforeLogin), ("accessTokenClaims", accessTokenClaims),
            ("sendSms", sendSms), ("migrateUser", migrateUser), ("migrateIdentity", migrateIdentity),
        ]
        .compactMap { key, function in function.map { (key, $0) } }
    }

    init(ejson: EJSON, path: String) throws(ConfigError) {
        var r = try ConfigReader(ejson, path: path)
        self.init()
        beforeUserCreated = try Self.name(&r, "beforeUserCreated")
        beforeLogin = try Self.name(&r, "beforeLogin")
        accessTokenClaims = try Self.name(&r, "accessTokenClaims")
        sendSms = try Self.name(&r, "sendSms")
        migrateUser = try Self.name(&r, "migrateUser")
        migrateIdentity = try Self.name(&r, "migrateIdentity")
        try r.finish()
    }

    private static func name(_ r: inout ConfigReader, _ key: String) throws(ConfigError) -> String? {
        guard let name = try r.string(key) else { return nil }
        guard !name.isEmpty else { throw ConfigError(key: r.keyPath(key), reason: "must name a plugin function") }
        return name
    }

    var ejson: EJSON {
        .document(EJSONDocument(named.map { ($0.key, EJSON.string($0.function)) }))
    }
}
