// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Glibc
import Lua
import LuaEJSON

/// The `auth` module: other apps, tasks, JSON/EJSON, progress, password prompts, the clock and
/// the dev API.
enum AuthModule {
    static func module(configuration: AuthScript.Configuration, app: AppObject) -> LuaModule {
        var t = LuaModule(
            "auth",
            summary: "The rest of the host: other apps, tasks, JSON and EJSON, progress, password prompts, the clock, the dev API, "
                + "identity-provider sign-in, the admin API and plain HTTP.")
        t.add(
            LuaFunction(
                "auth.app",
                "(options?: {id: string?, server: string?, persist: boolean?, firebase: (string|false)?, emulator: string?, "
                    + "apiKey: string?, google: boolean?}): App",
                "Another `App`: `id` defaults to `app.id`, `server` (a URL) to `app`'s server, the embedded one included; "
                    + "`persist = false` keeps its users in memory only (default: in `DATA/users`). "
                    + "`firebase = PROJECT` speaks Firebase Auth's API instead (its id is the project's): to the emulator at "
                    + "`emulator` (`HOST:PORT`), else to `server` (authsh's Firebase API, the embedded server's by default), or "
                    + "with `google = true` to Google's hosts (with the project's `apiKey`). What only App Services has fails "
                    + "`NotInProtocol`. Under `--firebase`, an app of the same id and server speaks Firebase's API as `app` does, "
                    + "so scripts run unchanged; `firebase = false` speaks App Services' instead."
            ) { call in
                let options = call.isNil(1) ? LuaTable() : try call.table(1)
                let appServices = options["firebase"] == .boolean(false)
                if options["firebase"] != .nil, !appServices {
                    return .one(.object(try firebaseApp(options, configuration: configuration)))
                }
                let id = options["id"] == .nil ? configuration.appId : try options.string("id", argument: 1)
                if !appServices, let project = configuration.firebase, id == configuration.appId, options["server"] == .nil {
                    let persist = options["persist"] == .nil || options["persist"].isTruthy
                    return .one(
                        .object(
                            AppObject(
                                id: id, server: configuration.server, storageDirectory: persist ? configuration.dataDirectory : nil,
                                requestTimeout: configuration.requestTimeout, firebase: project)))
                }
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
        for function in LuaTasks.all { t.add(function.named("auth." + function.name)) }
        var json = LuaModule("auth.json", summary: "Plain JSON (relaxed Extended JSON for the values JSON lacks).")
        json.add(EJSONLibrary.encoder("auth.json.encode", .relaxed))
        json.add(EJSONLibrary.decoder("auth.json.decode"))
        t.add("json", json)
        t.add("ejson", EJSONLibrary.module("auth.ejson", now: { Int64(time(nil)) }))
        t.add(
            LuaFunction(
                "auth.progress", "(total: integer, label?: string): Progress",
                "A progress report on stderr: a bar redrawn in place on a terminal; otherwise a line at most once a second "
                    + "and one at the end."
            ) { call in
                let total = try call.integer(1)
                guard total >= 0 else { throw LuaArgumentError(index: 1, message: "total must not be negative") }
                return .one(.object(ProgressObject(total: total, label: try call.optionalString(2) ?? "")))
            })
        t.add(PasswordPrompt.function)
        t.add(SecondFactorBindings.totp)
        t.add("passkey", PasskeyBindings.module(configuration: configuration))
        t.add(
            LuaFunction("auth.clock", "(): number", "A monotonic clock in seconds (a float), for timing.") { _ in
                .one(.number(ProgressObject.now()))
            })
        t.add("dev", devModule(app.dev))
        t.add(SignInBinding.function(app, name: "auth.signIn"))
        t.add(
            LuaFunction(
                "auth.signInMethods", "(email: string): string[]",
                "The providers the account holding `email` (a verified one) signs in with, `{}` when none; "
                    + "`EnumerationProtected` when the app hides it."
            ) { call in try AppObject.signInMethods(app, call, emailAt: 1) })
        t.add(HTTPBinding.function(server: app.server))
        t.add(AdminObject.function(configuration: configuration))
        return t
    }

    /// `auth.app{firebase = PROJECT, ...}`: an app that speaks Firebase Auth's API.
    static func firebaseApp(_ options: LuaTable, configuration: AuthScript.Configuration) throws -> AppObject {
        let projectId = try options.string("firebase", argument: 1)
        guard !projectId.isEmpty, projectId.utf8.count <= 128 else {
            throw LuaArgumentError(index: 1, message: "field 'firebase': a project id of 1 to 128 bytes")
        }
        let apiKey = options["apiKey"] == .nil ? nil : try options.string("apiKey", argument: 1)
        let project: FirebaseProject
        var server = configuration.server
        if options["google"].isTruthy {
            guard let apiKey else { throw LuaArgumentError(index: 1, message: "field 'apiKey': Google's hosts need the project's Web API key") }
            project = FirebaseProject(projectId: projectId, apiKey: apiKey)
            server = ScriptServer(url: project.identityToolkit)
        } else if options["emulator"] != .nil {
            let host = try options.string("emulator", argument: 1)
            let url = host.contains("://") ? host : "http://" + host
            if let problem = ScriptServer.problem(with: url) { throw LuaArgumentError(index: 1, message: "field 'emulator': \(problem)") }
            project = FirebaseProject(projectId: projectId, apiKey: apiKey ?? "fake-api-key", emulator: url)
            server = ScriptServer(url: url)
        } else {
            if options["server"] != .nil {
                let url = try options.string("server", argument: 1)
                if let problem = ScriptServer.problem(with: url) { throw LuaArgumentError(index: 1, message: "field 'server': \(problem)") }
                server = ScriptServer(url: url)
            }
            project = FirebaseProject(projectId: projectId, apiKey: apiKey ?? "fake-api-key", emulator: server.baseURL)
        }
        let persist = options["persist"] == .nil || options["persist"].isTruthy
        return AppObject(
            id: projectId, server: server, storageDirectory: persist ? configuration.dataDirectory : nil,
            requestTimeout: configuration.requestTimeout, firebase: project)
    }

    /// `outbox{email=, kind=}`: the dev outbox's messages (the verb `outbox` and `auth.dev.outbox`).
    static func outbox(_ dev: DevAPI, name: String) -> LuaFunction {
        LuaFunction(
            name, "(filter?: {email: string?, kind: string?}): Mail[]",
            "The dev server's mail, newest last; `kind` is `confirm`, `reset` or `plugin`. Needs a server in dev mode "
                + "(`ServerNotInDevMode`)."
        ) { call in
            let filter = call.isNil(1) ? LuaTable() : try call.table(1)
            let email = filter["email"].stringValue, kind = filter["kind"].stringValue
            return perform(call) { [LuaEJSON.lua(try await dev.outbox(email: email, kind: kind))] }
        }
    }

    /// `auth.dev`: the dev API of the default app's server.
    static func devModule(_ dev: DevAPI) -> LuaModule {
        var t = LuaModule(
            "auth.dev",
            summary: "The dev API of `app`'s server (in dev mode; the embedded one is): mail, config, the clock, users and the "
                + "dev identity provider. The embedded server keeps the outbox, config changes and the clock in memory.")
        t.add(outbox(dev, name: "auth.dev.outbox"))
        t.add(
            LuaFunction(
                "auth.dev.config", "(patch?: table): table",
                "The app's config (the config file's keys) after applying `patch`, a JSON merge patch, when given."
            ) { call in
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
        t.add(
            LuaFunction(
                "auth.dev.advanceClock", "(seconds: integer): {now: integer}",
                "Moves the server's clock forward (tokens and links expire); returns the new time in Unix seconds."
            ) { call in
                let seconds = try call.integer(1)
                guard seconds >= 0 else { throw LuaArgumentError(index: 1, message: "seconds must not be negative") }
                return perform(call) { [LuaEJSON.lua(try await dev.advanceClock(seconds: seconds))] }
            })
        t.add(
            LuaFunction(
                "auth.dev.wipeUsers", "()", "Deletes every user of the app on the server (the client's store keeps its copies)."
            ) { call in
                perform(call) {
                    try await dev.wipeUsers(); return []
                }
            })
        t.add(
            LuaFunction(
                "auth.dev.triggerRuns",
                "(filter?: {state: string?, limit: integer?}): {id: string, trigger: string, function: string, operation: string, "
                    + "state: string, attempts: integer, lastError: string?, createdAt: integer, finishedAt: integer?, event: table}[]",
                "The app's recent authentication trigger runs, newest first: each with its event and what became of it "
                    + "(`state` `queued`, `done` or `failed`, the last error); `state` filters."
            ) { call in
                let filter = call.isNil(1) ? LuaTable() : try call.table(1)
                let state = filter["state"].stringValue
                var limit: Int?
                if case .integer(let n) = filter["limit"] { limit = Int(n) }
                let max = limit
                return perform(call) { [LuaEJSON.lua(try await dev.triggerRuns(state: state, limit: max))] }
            })
        t.add(
            LuaFunction(
                "auth.dev.waitForTriggers", "(timeout?: integer): integer",
                "Waits until every queued trigger run of the app has run (or been given up), for up to `timeout` seconds "
                    + "(30 by default, at most 300); returns how many still wait, 0 when all ran: after a login, "
                    + "`assert(auth.dev.waitForTriggers() == 0)`, then look at what the trigger did."
            ) { call in
                let timeout = call.isNil(1) ? 30 : try call.integer(1)
                guard (0...300).contains(timeout) else { throw LuaArgumentError(index: 1, message: "timeout must be 0 to 300 seconds") }
                return perform(call) { [.integer(try await dev.waitForTriggers(seconds: timeout))] }
            })
        t.add(
            LuaFunction(
                "auth.dev.webhooks", "(): {method: string, contentType: string?, body: string, receivedAt: integer}[]",
                "What the dev server's webhook sink (`auth.dev.webhookURL`) received for the app, oldest first: a place a "
                    + "plugin's `context.http.post` can reach in a script, with no server of your own."
            ) { call in
                perform(call) { [LuaEJSON.lua(try await dev.webhooks())] }
            })
        t.add(
            LuaFunction(
                "auth.dev.webhookURL", "(): string",
                "The URL of the app's webhook sink on the dev server (the embedded one's real `http://127.0.0.1:PORT` "
                    + "origin, started if need be); list that origin in the app's `httpAllowList` for plugins to post there "
                    + "(JSON bodies only)."
            ) { call in
                perform(call) { [.string(LuaString(try await dev.webhookURL()))] }
            })
        t.add(
            LuaFunction(
                "auth.dev.plugin",
                "(name: string, arguments?: any[], context?: {user: table?, values: table?, now: integer?, store: table?, "
                    + "http: {method: string?, url: string, status: integer?, headers: table?, body: any}[]?}): "
                    + "{result: any, error: {code: string, message: string}?, logs: string[], "
                    + "mails: {to: string, subject: string, body: string}[], storeWrites: {key: string, value: any}[], "
                    + "customData: {userId: string, customData: table?}[], http: {method: string, url: string, headers: table, "
                    + "body: string?}[], store: table}",
                "Runs plugin function `name` on the dev server as a unit test, in its real sandbox and limits, with "
                    + "`arguments` (a list) and what the call finds: `context.user` (`user`), `context.values` (`values`, else "
                    + "the app's), `context.now()` (`now`), the store's values (`store`, else empty) and the answers of "
                    + "`context.http` (`http`: the first for a request's method and URL; the allow list still holds). Returns "
                    + "its result or `error`, and what it did, none of which reached the server: log lines, mails, store "
                    + "writes, custom data set, HTTP requests, and the store after the call."
            ) { call in
                let name = try call.string(1)
                var request: EJSONDocument = ["name": .string(name)]
                if !call.isNil(2) {
                    guard case .array(let list) = try LuaEJSON.ejson(.table(try call.table(2))) else {
                        throw LuaArgumentError(index: 2, message: "arguments must be a list")
                    }
                    request["arguments"] = .array(list)
                } else {
                    request["arguments"] = .array([])
                }
                if !call.isNil(3) {
                    guard case .document(let context) = try LuaEJSON.ejson(.table(try call.table(3))) else {
                        throw LuaArgumentError(index: 3, message: "context must be a table with named fields")
                    }
                    for (key, value) in context {
                        guard ["user", "values", "now", "store", "http"].contains(key) else {
                            throw LuaArgumentError(index: 3, message: "unknown field '\(key)' (user, values, now, store, http)")
                        }
                        request[key] = value
                    }
                }
                let body = request
                return perform(call) { [LuaEJSON.lua(try await dev.runPlugin(body))] }
            })
        var idp = LuaModule("auth.dev.idp", summary: "The dev identity provider, which stands in for GitHub and Google.")
        idp.add(
            LuaFunction(
                "auth.dev.idp.approve", "(userCode: string, identity: {email: string, name: string?, verified: boolean?, deny: boolean?})",
                "Approves a device sign-in as that identity (`verified` defaults to true); `{deny = true}` denies it."
            ) { call in
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
        idp.add(
            "githubAPI", .string(LuaString(dev.server.baseURL + "/dev/idp/github/api")),
            LuaDoc("string", "The URL of its GitHub API (`.. \"/user\"`, `.. \"/user/emails\"`), for `auth.http`."))
        t.add("idp", idp)
        return t
    }
}
