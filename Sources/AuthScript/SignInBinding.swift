// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// `signIn(provider, opts)` (also `auth.signIn` and `app:signIn`): the identity provider
/// flows of ``App/signIn(provider:scopes:customParameters:presenter:timeout:)`` from Lua.
///
/// `opts`: `scopes = {...}`, `customParameters = {k = v}`, `device = true` (the device flow:
/// a code to enter elsewhere), `browser = false` (print the URL instead of opening a
/// browser), `timeout = seconds` (default 300), and on a dev server `as = {email =, name =,
/// verified =}` to approve as that identity with no browser.
enum SignInBinding {
    static func function(_ app: AppObject, name: String) -> LuaFunction {
        LuaFunction(name, type, summary) { call in try signIn(app, call, from: 1) }
    }

    /// The description `signIn`, `auth.signIn` and `app:signIn` share.
    static let type =
        "(provider: string, options?: {scopes: string[]?, customParameters: table<string, string>?, device: boolean?, "
        + "browser: boolean?, timeout: number?, as: {email: string, name: string?, verified: boolean?}?}): User"
    static let summary =
        "Signs in with an identity provider (`\"github\"`, `\"google\"`, or any `oauth2-*` the server has) in the browser; "
        + "the user becomes current. `device = true` shows a code to enter elsewhere, `browser = false` prints the URL, "
        + "`timeout` is in seconds (default 300), and on a dev server `as` approves as that identity with no browser. "
        + "Ctrl-C cancels it."

    static func signIn(_ app: AppObject, _ call: LuaCall, from index: Int32) throws -> LuaReturn {
        let provider = try call.string(index)
        let options = call.isNil(index + 1) ? LuaTable() : try call.table(index + 1)
        let argument = index + 1
        var scopes: [String]?
        if options["scopes"] != .nil {
            scopes = try strings(options["scopes"], field: "scopes", argument: argument)
        }
        var parameters: [String: String] = [:]
        if case .table(let t) = options["customParameters"] {
            for (key, value) in t.fields {
                let number = value.integerValue.map { String($0) }
                guard let k = key.stringValue, let v = value.stringValue ?? number, t.array.isEmpty else {
                    throw LuaArgumentError(index: argument, message: "field 'customParameters' must map strings to strings")
                }
                parameters[k] = v
            }
        } else if options["customParameters"] != .nil {
            throw LuaArgumentError(index: argument, message: "field 'customParameters' must be a table")
        }
        let device = options["device"].isTruthy
        let browser = options["browser"] == .nil || options["browser"].isTruthy
        var timeout = Duration.seconds(300)
        if options["timeout"] != .nil {
            guard let seconds = options["timeout"].doubleValue, seconds > 0, seconds <= 86_400 else {
                throw LuaArgumentError(index: argument, message: "field 'timeout' must be a number of seconds (at most 86400)")
            }
            timeout = .milliseconds(Int64(seconds * 1000))
        }
        let presenter: SignInPresenter
        if case .table(let identity) = options["as"] {
            guard let email = identity["email"].stringValue else {
                throw LuaArgumentError(index: argument, message: "field 'as' needs an email ({email =, name =, verified =})")
            }
            let verified = identity["verified"] == .nil || identity["verified"].isTruthy
            presenter = .devIdentity(DevIdentity(email: email, name: identity["name"].stringValue, verified: verified), device: device)
        } else if options["as"] != .nil {
            throw LuaArgumentError(index: argument, message: "field 'as' must be a table ({email =, name =, verified =})")
        } else if device {
            presenter = .device { auth in
                let place = auth.verificationURIComplete ?? auth.verificationURI
                StandardError.write("To sign in, open \(place) and enter the code \(auth.userCode)\n")
            }
        } else if browser {
            presenter = .browser { line in StandardError.write(line + "\n") }
        } else {
            presenter = .url { url in StandardError.write("Open this URL in a browser to sign in: \(url)\n") }
        }
        let client = try app.app()
        let (scopeList, customParameters, limit) = (scopes, parameters, timeout)
        return perform(call) {
            let user = try await client.signIn(
                provider: provider, scopes: scopeList, customParameters: customParameters,
                presenter: presenter, timeout: limit)
            return [.object(app.object(user))]
        }
    }

    private static func strings(_ value: LuaValue, field: String, argument: Int32) throws -> [String] {
        guard case .table(let t) = value else {
            throw LuaArgumentError(index: argument, message: "field '\(field)' must be a list of strings")
        }
        return try t.array.map { v in
            guard let s = v.stringValue else { throw LuaArgumentError(index: argument, message: "field '\(field)' must be a list of strings") }
            return s
        }
    }
}
