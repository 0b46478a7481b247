// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// Credentials as Lua sees them. `tostring` names the provider and, for email/password, the
/// email; never a password, key or token.
public final class CredentialsObject: LuaObject {
    public let credentials: Credentials
    public init(_ credentials: Credentials) { self.credentials = credentials }

    var summary: String {
        if credentials.provider == ProviderType.userpass, let email = credentials.body["username"]?.stringValue {
            return "Credentials(\(credentials.provider), \(email))"
        }
        if credentials.provider == ProviderType.anonymous { return "Credentials(\(credentials.provider)\(credentials.reuse ? "" : ", new"))" }
        return "Credentials(\(credentials.provider))"
    }

    public static let luaClass = LuaClass<CredentialsObject>(
        "Credentials",
        summary: "What `login` and `linkIdentity` take; made by the `credentials` constructors. `tostring` names the provider "
            + "and, for email/password, the email (`Credentials(local-userpass, alice@example.com)`); never a password, key or token.",
        members: [.property("provider", "string", "the provider's wire name (`local-userpass`)") { .string(LuaString($0.credentials.provider)) }],
        description: { $0.summary })
}

/// The `credentials` table: one constructor per kind of login, each making a login body of
/// docs/protocol/wire-protocol.md section 3.
enum CredentialsLibrary {
    static func module() -> LuaModule {
        var t = LuaModule("credentials", summary: "Constructors of `Credentials`, one per kind of login.")
        func add(
            _ name: String, _ type: String, _ summary: String, overloads: [String] = [],
            _ make: @escaping @Sendable (LuaCall) throws -> Credentials
        ) {
            t.add(
                LuaFunction("credentials.\(name)", type + ": Credentials", summary, overloads: overloads.map { $0 + ": Credentials" }) { call in
                    .one(.object(CredentialsObject(try make(call))))
                })
        }
        add(
            "anonymous", "(options?: {reuse: boolean?})",
            "`anon-user`. With `reuse` (the default) the logged-in anonymous user, if there is one, logs in again with no "
                + "request; `reuse = false` makes a new user each time."
        ) { call in
            guard !call.isNil(1) else { return .anonymous() }
            let options = try call.table(1)
            return .anonymous(reuse: options["reuse"] == .nil ? true : options["reuse"].isTruthy)
        }
        add(
            "emailPassword", "(email: string, password: string)", "`local-userpass`: an email/password account.",
            overloads: ["(account: {email: string, password: string})"]
        ) { call in
            let values = try call.strings(["email", "password"], from: 1)
            return .emailPassword(email: values[0], password: values[1])
        }
        add("apiKey", "(key: string)", "`api-key`: a user's API key logs in as its owner.") { call in .userAPIKey(try call.string(1)) }
        add("serverApiKey", "(key: string)", "`api-key` too: the server has user keys only.") { call in .serverAPIKey(try call.string(1)) }
        add(
            "mfa", "(mfaTokenOrError: string|AuthError, code: string)",
            "The second step of a login that raised `MFARequired`: its `err.mfaToken` (or `err` itself) and a TOTP code "
                + "(`auth.totp(secret)`) or a recovery code; or `err` and an `Authenticator` holding one of the user's "
                + "passkeys. Once, within 5 minutes and 5 attempts.",
            overloads: ["(err: AuthError, authenticator: Authenticator)"]
        ) { call in try SecondFactorBindings.credential(call) }
        add(
            "emailLink", "(email: string, link: string)",
            "`email-link`, Firebase only: the link of a mail `app.emailPasswordAuth:sendSignInLink(email)` sent (or its "
                + "`oobCode`) and the email it went to.",
            overloads: ["(options: {email: string, link: string})"]
        ) { call in try FirebaseBindings.emailLink(call) }
        add(
            "passkey", "(authenticator: Authenticator)",
            "`passkey`: a login with no user name; the server's options are asked for at login, and the authenticator answers "
                + "with its newest credential for the server.",
            overloads: ["(options: {authenticator: Authenticator})"]
        ) { call in try PasskeyBindings.credential(call) }
        add(
            "jwt", "(token: string)",
            "`custom-token`, when the app's config enables it (the embedded app does not; `auth.dev.config` can)."
        ) { call in .jwt(try call.string(1)) }
        add(
            "customFunction", "(payload: table)",
            "`custom-function`: `payload` goes to the plugin that exports `login` (`plugins/login.lua`)."
        ) { call in
            guard case .document(let payload) = try payloadEJSON(call) else {
                throw LuaArgumentError(index: 1, message: "the payload must be a table with string keys")
            }
            return .function(payload: payload)
        }
        add(
            "google", "(token: {authCode: string?, idToken: string?})", "`oauth2-google`: a code or an ID token your app obtained from Google."
        ) { call in
            let options = try call.table(1)
            if let code = options["authCode"].stringValue { return .google(authCode: code) }
            if let token = options["idToken"].stringValue { return .google(idToken: token) }
            throw LuaArgumentError(index: 1, message: "give authCode or idToken")
        }
        add("apple", "(idToken: string)", "`oauth2-apple`: an ID token from Apple.", overloads: ["(token: {idToken: string})"]) { call in
            .apple(idToken: call.isTable(1) ? try call.table(1).string("idToken", argument: 1) : try call.string(1))
        }
        add(
            "facebook", "(accessToken: string)", "`oauth2-facebook`: an access token from Facebook.",
            overloads: ["(token: {accessToken: string})"]
        ) { call in
            .facebook(accessToken: call.isTable(1) ? try call.table(1).string("accessToken", argument: 1) : try call.string(1))
        }
        add(
            "oauth",
            "(provider: string, token?: {idToken: string?, authCode: string?, redirectUri: string?, codeVerifier: string?, accessToken: string?})",
            "`oauth2-PROVIDER`, any provider the server has (`\"github\"` or `\"oauth2-github\"`), with what the provider gave your app."
        ) { call in
            let provider = try call.string(1)
            var body: EJSONDocument = [:]
            if !call.isNil(2) {
                guard case .document(let options) = try LuaEJSON.ejson(.table(try call.table(2))) else {
                    throw LuaArgumentError(index: 2, message: "options must be a table with string keys")
                }
                body = options
            }
            let wire = provider.hasPrefix("oauth2-") ? provider : "oauth2-" + provider
            body["provider"] = .string(wire)
            return Credentials(provider: wire, body: body)
        }
        return t
    }

    private static func payloadEJSON(_ call: LuaCall) throws -> EJSON {
        do { return try LuaEJSON.ejson(.table(try call.table(1))) } catch let e as LuaEJSON.ConversionError {
            throw LuaArgumentError(index: 1, message: e.description)
        }
    }
}
