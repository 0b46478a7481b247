// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Glibc
import Lua
import LuaEJSON

/// `auth.admin{server=, key=, app=, allowHTTP=}`: a server's admin API, for scripts that seed
/// and inspect users. With no `server`, the script's own (the embedded server opens its admin
/// API to this process with a key of its own); the key is `key`, else `AUTHSH_ADMIN_KEY`. An
/// http:// server that is not this machine is refused (the key would cross the network in
/// clear) unless `allowHTTP = true`.
///
/// Methods: `users{filters}` (every user they select, page after page), `user(id)`,
/// `disable(id)`, `enable(id)`, `delete(id)`, `revoke(id)` (how many sessions ended),
/// `setCustomData(id, table or nil)`, `sendReset(id)`, `confirm(email)`, `export(path)`
/// (`{users =, accounts =}`) and `import(path[, {continueOnError = true}])` (the report).
/// Users are tables as the admin API shows them.
final class AdminObject: LuaObject {
    let client: AdminClient

    init(client: AdminClient) {
        self.client = client
    }

    static func function(configuration: AuthScript.Configuration) -> LuaFunction {
        LuaFunction(
            "auth.admin", "(options?: {server: string?, key: string?, app: string?, allowHTTP: boolean?}): Admin",
            "An `Admin` on a server's admin API. `server` defaults to `app`'s (the embedded one opens its admin API to the "
                + "process, no key needed), `key` to `AUTHSH_ADMIN_KEY`; an `http://` server that is not this machine is refused "
                + "(the key would cross the network in clear) unless `allowHTTP = true`."
        ) { call in
            let options = call.isNil(1) ? LuaTable() : try call.table(1)
            let app = options["app"] == .nil ? configuration.appId : try options.string("app", argument: 1)
            var server = configuration.server
            if options["server"] != .nil {
                let url = try options.string("server", argument: 1)
                if let problem = ScriptServer.problem(with: url) { throw LuaArgumentError(index: 1, message: "field 'server': \(problem)") }
                server = ScriptServer(url: url)
            }
            let key: String
            if options["key"] != .nil {
                key = try options.string("key", argument: 1)
            } else if let k = server.adminKey ?? getenv("AUTHSH_ADMIN_KEY").map({ String(cString: $0) }), !k.isEmpty {
                key = k
            } else {
                throw LuaArgumentError(index: 1, message: "an admin key is needed: key = ..., or AUTHSH_ADMIN_KEY")
            }
            if !server.isEmbedded, !(options["allowHTTP"].isTruthy), let problem = Loopback.cleartextProblem(url: server.baseURL) {
                throw LuaArgumentError(
                    index: 1, message: "\(problem), and the admin key would be sent in clear: use https://, or allowHTTP = true to send it anyway")
            }
            let origin = server.isEmbedded ? ScriptServer.embeddedURL : server.baseURL
            let client = AdminClient(
                server: origin, key: key, app: app, transport: ScriptTransport(server: server),
                resolve: { [server] in try await server.origin() })
            return .one(.object(AdminObject(client: client)))
        }
    }

    /// The string filters of `users{...}`: numbers become their decimal text.
    private static func filters(_ t: LuaTable) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in ["email", "provider", "state", "createdAfter", "createdBefore", "lastLoginAfter", "lastLoginBefore"] {
            switch t[name] {
            case .nil: continue
            case .string(let s): out[name] = s.text
            case .integer(let n): out[name] = String(n)
            case .number(let d) where d == d.rounded(): out[name] = String(Int64(d))
            default: throw LuaArgumentError(index: 2, message: "field '\(name)' must be a string or an integer")
            }
        }
        return out
    }

    static let luaClass = LuaClass<AdminObject>(
        "Admin",
        summary: "A server's admin API, made by `auth.admin`, for scripts that seed and inspect users.",
        members: [
            .property("app", "string", "the app it administers") { .string(LuaString($0.client.app)) },
            .method(
                "users",
                "(filters?: {email: string?, provider: string?, state: string?, createdAfter: string|integer?, createdBefore: string|integer?, lastLoginAfter: string|integer?, lastLoginBefore: string|integer?}): table[]",
                "every user the filters select, page after page, as the admin API shows them"
            ) { a, call in
                let filters = try AdminObject.filters(call.isNil(2) ? LuaTable() : try call.table(2))
                return perform(call) { [.table(LuaTable(array: try await a.client.allUsers(filters).map(LuaEJSON.lua)))] }
            },
            .method("user", "(id: string): table", "one user, with its `sessions`, `apiKeys` and `audit`") { a, call in
                let id = try call.string(2)
                return perform(call) { [LuaEJSON.lua(try await a.client.user(id))] }
            },
            .method("disable", "(id: string)", "disables the user: its sessions end and it cannot log in") { a, call in
                let id = try call.string(2)
                return perform(call) {
                    try await a.client.disable(id); return []
                }
            },
            .method("enable", "(id: string)", "enables the user again") { a, call in
                let id = try call.string(2)
                return perform(call) {
                    try await a.client.enable(id); return []
                }
            },
            .method("delete", "(id: string)", "deletes the user") { a, call in
                let id = try call.string(2)
                return perform(call) {
                    try await a.client.delete(id); return []
                }
            },
            .method("revoke", "(id: string): integer", "ends the user's sessions; returns how many") { a, call in
                let id = try call.string(2)
                return perform(call) { [.integer(Int64(try await a.client.revokeSessions(id)))] }
            },
            .method("setCustomData", "(id: string, data: table?): table", "sets (or with nil removes) the user's custom data") { a, call in
                let id = try call.string(2)
                var data: EJSONDocument?
                if !call.isNil(3) {
                    guard case .document(let d) = try LuaEJSON.ejson(.table(try call.table(3))) else {
                        throw LuaArgumentError(index: 3, message: "custom data must be a table with string keys, or nil")
                    }
                    data = d
                }
                let value = data
                return perform(call) { [LuaEJSON.lua(try await a.client.setCustomData(id, value))] }
            },
            .method("factors", "(id: string): table", "the user's second factors: `{factors = {{type, confirmed, createdAt}}, recoveryCodes}`") {
                a, call in
                let id = try call.string(2)
                return perform(call) { [LuaEJSON.lua(try await a.client.secondFactors(id))] }
            },
            .method("removeTOTP", "(id: string)", "removes the user's TOTP factor and recovery codes (a lost authenticator)") { a, call in
                let id = try call.string(2)
                return perform(call) {
                    try await a.client.removeTOTP(id); return []
                }
            },
            .method(
                "removePhoneFactor", "(id: string, enrollmentId: string)",
                "removes one of the user's phone factors (its `id` in `factors`: a lost phone)"
            ) { a, call in
                let id = try call.string(2), enrollment = try call.string(3)
                return perform(call) {
                    try await a.client.removePhoneFactor(id, enrollmentId: enrollment); return []
                }
            },
            .method("sendReset", "(id: string)", "mails the user a password reset") { a, call in
                let id = try call.string(2)
                return perform(call) {
                    try await a.client.sendReset(id); return []
                }
            },
            .method(
                "export", "(path: string): {users: integer, accounts: integer}", "writes every user and account to `path` (NDJSON); returns how many"
            ) { a, call in
                let path = try call.string(2)
                return perform(call) {
                    let result = try await a.client.export(to: path)
                    return [.table(LuaTable(["users": .integer(Int64(result.users)), "accounts": .integer(Int64(result.accounts))]))]
                }
            },
            .method("import", "(path: string, options?: {continueOnError: boolean?}): table", "reads an export into the app; returns the report") {
                a, call in
                let path = try call.string(2)
                let options = call.isNil(3) ? LuaTable() : try call.table(3)
                let continueOnError = options["continueOnError"].isTruthy
                return perform(call) { [LuaEJSON.lua(try await a.client.importFile(path, continueOnError: continueOnError))] }
            },
            .method("confirm", "(email: string)", "confirms the pending account of `email`") { a, call in
                let email = try call.string(2)
                return perform(call) {
                    try await a.client.confirm(email: email); return []
                }
            },
        ],
        description: { a in "Admin(\(a.client.app))" })
}
