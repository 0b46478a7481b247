// SPDX-License-Identifier: Apache-2.0
import AuthClient
import Synchronization
import Lua
import LuaEJSON

/// An auth failure as Lua sees it: an `AuthError` object with `code` (the wire name, such as
/// `InvalidPassword`), `message`, `status` (HTTP, or nil), `link` and `where` (the calling
/// script's `file:line:`). `tostring(err)` is one line.
public final class AuthErrorObject: LuaObject {
    public let error: AuthClientError
    /// `chunk:line: ` of the call that failed, or empty.
    public let position: String

    public init(_ error: AuthClientError, position: String) {
        self.error = error
        self.position = position
    }

    /// Whether ``line`` names the request that failed (`AUTHSH_ERROR_REQUEST=1`, which
    /// `authsh test` sets for its spec files). Set once at start-up, before any error exists.
    public static let namesRequests = Atomic<Bool>(false)

    /// `where code: message (HTTP status)`, or `(HTTP status, METHOD /path)` when
    /// ``namesRequests``.
    public var line: String {
        var text = position + error.code + ": " + error.message
        let request = Self.namesRequests.load(ordering: .relaxed) ? error.request : nil
        switch (error.status, request) {
        case (let status?, let request?): text += " (HTTP \(status), \(request))"
        case (let status?, nil): text += " (HTTP \(status))"
        case (nil, let request?): text += " (\(request))"
        case (nil, nil): break
        }
        return text
    }

    /// The line the REPL prints: ``line``, except for a login that needs its second factor
    /// (the REPL then asks for the code), and the account-exists conflict, which says what to
    /// do next as a line to run. `_` is the error when it prints, and stays so while
    /// that line runs: signing in and `linkIdentity(_.credential)` go in one line.
    public var replLine: String {
        if error.code == "MFARequired" {
            return "\(position)MFARequired: this user has a second factor: type the code from the authenticator app, "
                + "or a recovery code (an empty line gives up)"
        }
        guard error.code == "AccountExistsWithDifferentCredential", let email = error.email, let pending = error.pendingCredential
        else { return line }
        let signIn: String
        switch error.providers.first {
        case "local-userpass"?:
            signIn = "login(credentials.emailPassword(\(LuaFormatter.quote(Array(email.utf8))), auth.password()))"
        case let type? where type.hasPrefix("oauth2-"):
            signIn = "signIn(\(LuaFormatter.quote(Array(type.dropFirst("oauth2-".count).utf8))))"
        case "custom-token"?:
            signIn = "login(credentials.jwt(TOKEN))"
        default:
            signIn = "login(...)"
        }
        return "\(position)AccountExistsWithDifferentCredential: \(email) already has an account (\(error.providers.joined(separator: ", "))): "
            + "sign in to it and link \(pending.provider) in one line: \(signIn); linkIdentity(_.credential)"
    }

    public static let luaClass = LuaClass<AuthErrorObject>(
        "AuthError",
        summary: "What auth calls raise: a userdata, so compare `err.code`, not `err`. `tostring(err)`: "
            + "`where code: message (HTTP status)` on one line. Bad arguments raise an ordinary error string that names the "
            + "function and the argument.",
        members: [
            .property(
                "code", "string",
                "the wire `error_code` (`InvalidPassword`, `AccountNameInUse`, ...) or a client code (see the codes below)"
            ) { .string(LuaString($0.error.code)) },
            .property("message", "string", "the text") { .string(LuaString($0.error.message)) },
            .property(
                "firebaseCode", "string?",
                "an app that speaks Firebase Auth: the SDKs' name of the error (`auth/wrong-password`, ...); nil otherwise"
            ) { $0.error.firebaseCode.map { .string(LuaString($0)) } ?? .nil },
            .property("status", "integer?", "the HTTP status; nil when there was no answer") {
                $0.error.status.map { .integer(Int64($0)) } ?? .nil
            },
            .property("link", "string?", "the server's log link, when it gives one (authsh's server does not)") {
                $0.error.link.map { .string(LuaString($0)) } ?? .nil
            },
            .property(
                "request", "string?",
                "the request that failed, as `METHOD /path` (no host, no query: never a token); nil when the error is no "
                    + "answer to one"
            ) { $0.error.request.map { .string(LuaString($0)) } ?? .nil },
            .property("where", "string", "`file:line: ` of the Lua call that failed, or `\"\"`") { .string(LuaString($0.position)) },
            .property("email", "string?", "`AccountExistsWithDifferentCredential` only: the email") {
                $0.error.email.map { .string(LuaString($0)) } ?? .nil
            },
            .property("providers", "string[]?", "`AccountExistsWithDifferentCredential` only: the providers its account signs in with") {
                object in
                object.error.details["providers"] == nil
                    ? .nil
                    : .table(LuaTable(array: object.error.providers.map { .string(LuaString($0)) }))
            },
            .property(
                "credential", "Credentials?",
                "`AccountExistsWithDifferentCredential` only: the pending credential, to link once signed in"
            ) { $0.error.pendingCredential.map { .object(CredentialsObject($0)) } ?? .nil },
            .property(
                "mfaToken", "string?",
                "`MFARequired` only: completes the login with a code, `login(credentials.mfa(err, code))`"
            ) { $0.error.mfaToken.map { .string(LuaString($0)) } ?? .nil },
            .property("factors", "string[]?", "`MFARequired` only: what the login may be completed with (`totp`, `recovery_code`)") {
                object in
                object.error.details["factors"] == nil
                    ? .nil : .table(LuaTable(array: object.error.factors.map { .string(LuaString($0)) }))
            },
        ],
        description: { $0.line })
}

/// What an async binding throws: raised in Lua as an `AuthError` object.
struct ScriptError: LuaErrorConvertible {
    let object: AuthErrorObject
    var luaValue: LuaValue { .object(object) }

    init(_ error: AuthClientError, position: String) {
        object = AuthErrorObject(error, position: position)
    }

    /// Any error of a binding's work, as an auth error.
    init(_ error: any Error, position: String) {
        switch error {
        case let e as ScriptError: self = e
        case let e as AuthClientError: self.init(e, position: position)
        case let e as LuaEJSON.ConversionError:
            self.init(AuthClientError(code: ScriptError.conversionFailed, message: e.description), position: position)
        default:
            self.init(AuthClientError(code: ScriptError.internalError, message: "\(error)"), position: position)
        }
    }

    /// A value could not be converted between Lua and EJSON.
    static let conversionFailed = "ConversionFailed"
    /// Something that is no auth error failed (a bug if it is ever seen).
    static let internalError = "InternalError"
    /// A dev-only helper was used against a server that is not in dev mode.
    static let notInDevMode = "ServerNotInDevMode"
    /// The embedded server did not start.
    static let embeddedServerFailed = "EmbeddedServerFailed"
}

/// Runs a binding's async work; any failure is raised as an `AuthError` that names where the
/// script called it.
func perform(_ call: LuaCall, _ body: @escaping @Sendable () async throws -> [LuaValue]) -> LuaReturn {
    let position = call.position
    return .async {
        do { return try await body() } catch { throw ScriptError(error, position: position) }
    }
}

/// Client errors thrown before a binding yields (a store that cannot be opened, a user that is
/// not logged in) are raised as `AuthError` objects too. Both modules are this package's own.
extension AuthClientError: LuaErrorConvertible {
    public var luaValue: LuaValue { .object(AuthErrorObject(self, position: "")) }
}
