import AuthClient
import AuthProtocol
import Glibc
import Lua
import LuaEJSON

/// The `auth` module: other apps, tasks, JSON/EJSON, progress, password prompts, the clock and
/// the dev API.
enum AuthModule {
    static func table(configuration: AuthScript.Configuration, app: AppObject) -> LuaTable {
        var t = LuaTable()
        for function in LuaTasks.all { t[function.name] = .function(function) }
        t["app"] = .function(
            LuaFunction("auth.app") { call in
                let options = call.isNil(1) ? LuaTable() : try call.table(1)
                let id = options["id"] == .nil ? configuration.appId : try options.string("id", argument: 1)
                let server: ScriptServer
                if options["server"] == .nil {
                    server = configuration.server
                } else {
                    let url = try options.string("server", argument: 1)
                    if let problem = ScriptServer.problem(with: url) {
                        throw LuaArgumentError(index: 1, message: "field 'server': \(problem)")
                    }
                    server = ScriptServer(url: url)
                }
                let persist = options["persist"] == .nil || options["persist"].isTruthy
                return .one(
                    .object(
                        AppObject(
                            id: id, server: server, storageDirectory: persist ? configuration.dataDirectory : nil,
                            requestTimeout: configuration.requestTimeout)))
            })
        var json = LuaTable()
        json["encode"] = .function(EJSONLibrary.encoder("auth.json.encode", .relaxed))
        json["decode"] = .function(EJSONLibrary.decoder("auth.json.decode"))
        t["json"] = .table(json)
        t["ejson"] = .table(EJSONLibrary.table(now: { Int64(time(nil)) }))
        t["progress"] = .function(
            LuaFunction("auth.progress") { call in
                let total = try call.integer(1)
                guard total >= 0 else { throw LuaArgumentError(index: 1, message: "total must not be negative") }
                return .one(.object(ProgressObject(total: total, label: try call.optionalString(2) ?? "")))
            })
        t["password"] = .function(PasswordPrompt.function)
        t["clock"] = .function(LuaFunction("auth.clock") { _ in .one(.number(ProgressObject.now())) })
        t["dev"] = .table(devTable(app.dev))
        t["signIn"] = .function(SignInBinding.function(app, name: "auth.signIn"))
        t["signInMethods"] = .function(LuaFunction("auth.signInMethods") { call in try AppObject.signInMethods(app, call, emailAt: 1) })
        t["http"] = .function(HTTPBinding.function(server: app.server))
        t["admin"] = .function(AdminObject.function(configuration: configuration))
        return t
    }

    /// `outbox{email=, kind=}`: the dev outbox's messages (the verb `outbox` and `auth.dev.outbox`).
    static func outbox(_ dev: DevAPI, name: String) -> LuaFunction {
        LuaFunction(name) { call in
            let filter = call.isNil(1) ? LuaTable() : try call.table(1)
            let email = filter["email"].stringValue, kind = filter["kind"].stringValue
            return perform(call) { [LuaEJSON.lua(try await dev.outbox(email: email, kind: kind))] }
        }
    }

    /// `auth.dev`: the dev API of the default app's server.
    static func devTable(_ dev: DevAPI) -> LuaTable {
        var t = LuaTable()
        t["outbox"] = .function(outbox(dev, name: "auth.dev.outbox"))
        t["config"] = .function(
            LuaFunction("auth.dev.config") { call in
                let patch: EJSONDocument?
                if call.isNil(1) {
                    patch = nil
                } else {
                    guard case .document(let d) = try LuaEJSON.ejson(.table(try call.table(1))) else {
                        throw LuaArgumentError(index: 1, message: "the patch must be a table with string keys")
                    }
                    patch = d
                }
                return perform(call) { [LuaEJSON.lua(try await dev.config(patch: patch))] }
            })
        t["advanceClock"] = .function(
            LuaFunction("auth.dev.advanceClock") { call in
                let seconds = try call.integer(1)
                guard seconds >= 0 else { throw LuaArgumentError(index: 1, message: "seconds must not be negative") }
                return perform(call) { [LuaEJSON.lua(try await dev.advanceClock(seconds: seconds))] }
            })
        t["wipeUsers"] = .function(
            LuaFunction("auth.dev.wipeUsers") { call in
                perform(call) {
                    try await dev.wipeUsers(); return []
                }
            })
        var idp = LuaTable()
        // auth.dev.idp.approve(userCode, {email =, name =, verified =}): the person approves a
        // device sign-in at the dev identity provider; `{deny = true}` denies it.
        idp["approve"] = .function(
            LuaFunction("auth.dev.idp.approve") { call in
                let code = try call.string(1)
                let identity = try call.table(2)
                var body: EJSONDocument = ["userCode": .string(code)]
                if identity["deny"].isTruthy {
                    body["decision"] = "deny"
                } else {
                    let email = try identity.string("email", argument: 2)
                    var d: EJSONDocument = [
                        "email": .string(email), "verified": .bool(identity["verified"] == .nil || identity["verified"].isTruthy),
                    ]
                    if let name = identity["name"].stringValue { d["name"] = .string(name) }
                    body["identity"] = .document(d)
                }
                let request = body
                return perform(call) {
                    _ = try await dev.idp("/device/approve", body: .document(request)); return []
                }
            })
        // The dev identity provider's GitHub API (`/user`, `/user/emails`), for auth.http.
        idp["githubAPI"] = .string(LuaString(dev.server.baseURL + "/dev/idp/github/api"))
        t["idp"] = .table(idp)
        return t
    }
}
