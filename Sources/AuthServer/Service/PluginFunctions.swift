// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON
import Logging

/// The app's plugin functions as the server runs them: counted in the metrics, their failures
/// turned into wire errors, and the roles the config gives them (confirmation, reset,
/// custom-function login).
struct PluginFunctions {
    /// The Lua plugins.
    let plugins: PluginRuntime
    let logger: Logger
    /// What `/metrics` counts (nil without `--metrics-port`).
    let metrics: ServerMetrics?

    /// Checks that every plugin function the app's config uses resolves.
    static func checkFunctionNames(_ app: AppConfiguration, exports: Set<String>) throws(ConfigError) {
        func check(_ name: String?, key: String, switch flag: String) throws(ConfigError) {
            guard let name, !name.isEmpty else {
                throw ConfigError(key: key, reason: "missing: \(flag) needs a plugin function name")
            }
            guard exports.contains(name) else {
                let known = exports.isEmpty ? "no plugin exports a function" : "plugins export \(exports.sorted().joined(separator: ", "))"
                throw ConfigError(key: key, reason: "no plugin function '\(name)' (\(known))")
            }
        }
        let userpass = "providers.\(ProviderType.userpass)"
        if let u = app.providers.userpass {
            if u.runConfirmationFunction {
                try check(u.confirmationFunctionName, key: "\(userpass).confirmationFunctionName", switch: "runConfirmationFunction")
            }
            if u.runResetFunction {
                try check(u.resetFunctionName, key: "\(userpass).resetFunctionName", switch: "runResetFunction")
            }
        }
        if let f = app.providers.customFunction {
            try check(
                f.authFunctionName, key: "providers.\(ProviderType.customFunction).authFunctionName",
                switch: "the custom-function provider")
        }
        for (key, function) in app.hooks.named {
            try check(function, key: "hooks.\(key)", switch: "hooks.\(key)")
        }
        for (i, trigger) in app.triggers.enumerated() where !trigger.disabled {
            try check(trigger.functionName, key: "triggers[\(i)].function_name", switch: "trigger \(trigger.name)")
        }
    }

    /// True when the app's config gives function `name` a role (confirmation, reset, custom
    /// login, a hook); users cannot call those through `functions/call`.
    static func isRoleFunction(_ name: String, of app: AppConfiguration) -> Bool {
        if let u = app.providers.userpass {
            if u.runConfirmationFunction && u.confirmationFunctionName == name { return true }
            if u.runResetFunction && u.resetFunctionName == name { return true }
        }
        return app.providers.customFunction?.authFunctionName == name || app.hooks.named.contains { $0.function == name }
            || app.triggers.contains { $0.functionName == name }
    }

    /// Runs plugin function `name` for `app`; errors stay Lua errors (see ``pluginError``).
    /// `deadline` replaces the plugins' time limit (a trigger's own); `inline` false keeps it off
    /// the caller's thread (``PluginExecutor``).
    /// `probe` runs it as a unit test (``PluginProbe``), with `values` in place of the app's.
    func runPlugin(
        _ name: String, app: AppRuntime, arguments: [LuaValue], userId: String? = nil, deadline: Duration? = nil,
        inline: Bool = true, probe: PluginProbe? = nil, values: EJSONDocument? = nil
    ) async throws -> LuaValue {
        var invocation = PluginInvocation(
            function: name, values: values ?? app.config.values, userId: userId, quota: app.config.pluginLimits)
        invocation.deadline = deadline
        invocation.httpAllowList = app.config.httpAllowList
        invocation.probe = probe
        guard let metrics else {
            return try await plugins.call(app: app.id, function: name, arguments: arguments, invocation: invocation, inline: inline)
        }
        do {
            let result = try await plugins.call(app: app.id, function: name, arguments: arguments, invocation: invocation, inline: inline)
            metrics.pluginCall("ok")
            return result
        } catch {
            switch (error as? LuaError)?.code {
            case .timeout: metrics.pluginCall("killed_time")
            case .memory: metrics.pluginCall("killed_memory")
            default: metrics.pluginCall("error")
            }
            throw error
        }
    }

    /// Runs plugin function `name`, with failures as the wire errors of section 4.
    func callPlugin(_ name: String, app: AppRuntime, arguments: [LuaValue], userId: String? = nil) async throws -> LuaValue {
        do {
            return try await runPlugin(name, app: app, arguments: arguments, userId: userId)
        } catch {
            throw pluginError(error, function: name, app: app)
        }
    }

    /// A plugin failure as the client sees it; the server log gets the traceback.
    func pluginError(_ error: any Error, function: String, app: AppRuntime) -> any Error {
        if error is ServiceError { return error }
        guard let lua = error as? LuaError else {
            logger.error("plugin call failed", metadata: ["app": "\(app.id)", "plugin": "\(function)", "error": "\(error)"])
            return ServiceError(.functionExecutionError, "function '\(function)' could not run")
        }
        logger.warning(
            "plugin error: \(lua.message)",
            metadata: [
                "app": "\(app.id)", "plugin": "\(function)", "traceback": "\(lua.traceback ?? "")",
            ])
        if lua.code == .timeout || lua.code == .memory {
            AuditTrail.record(
                "plugin_killed", app: app.id, outcome: "failure",
                detail: "\(lua.code == .timeout ? "time" : "memory") limit: \(function)")
        }
        return Self.wireError(lua, function: function)
    }

    /// The wire error of a plugin's Lua failure (nothing logged).
    static func wireError(_ lua: LuaError, function: String) -> ServiceError {
        switch lua.code {
        case .timeout:
            return ServiceError(.executionTimeLimitExceeded, "execution time limit exceeded")
        case .conversion:
            return ServiceError(.functionExecutionError, "function '\(function)' returned a value that cannot be converted: \(lua.message)")
        default:
            return ServiceError(.functionExecutionError, lua.message)
        }
    }

    /// The custom-function provider: the payload (without `provider` and `options`) goes to the
    /// function, which returns an external id or `{id, name}`; `error("msg")` refuses the login.
    func customFunctionProof(app: AppRuntime, name: String, body: InputFields) async throws -> (id: String, profile: EJSONDocument) {
        var payload = body.document
        payload["provider"] = nil
        payload["options"] = nil
        let result: LuaValue
        do {
            result = try await runPlugin(name, app: app, arguments: [LuaEJSON.lua(payload)])
        } catch let error as LuaError where error.code == .runtime {
            logger.info("custom-function login refused", metadata: ["app": "\(app.id)", "plugin": "\(name)"])
            throw ServiceError(.authError, Self.withoutPosition(error.message))
        } catch {
            throw pluginError(error, function: name, app: app)
        }
        let shape = "login function '\(name)' must return an id string or {id = ..., name = ...}"
        switch result {
        case .string(let s):
            guard let id = s.text, !id.isEmpty, id.utf8.count <= 256 else { throw ServiceError(.functionExecutionError, shape) }
            return (id, [:])
        case .table(let t):
            guard let id = t["id"].stringValue, !id.isEmpty, id.utf8.count <= 256 else {
                throw ServiceError(.functionExecutionError, shape)
            }
            var profile = EJSONDocument()
            if let name = t["name"].stringValue { profile["name"] = .string(name) }
            return (id, profile)
        default:
            throw ServiceError(.functionExecutionError, "\(shape), got \(result.typeName)")
        }
    }

    /// `error("msg")` in `login.lua` line 3 raises "login.lua:3: msg"; the client gets "msg".
    static func withoutPosition(_ message: String) -> String {
        guard let colon = message.firstIndex(of: ":"), message[..<colon].hasSuffix(".lua") else { return message }
        let rest = message[message.index(after: colon)...]
        guard let second = rest.firstIndex(of: ":"), !rest[..<second].isEmpty, rest[..<second].allSatisfy(\.isNumber) else {
            return message
        }
        return String(rest[rest.index(after: second)...].drop(while: { $0 == " " }))
    }

    /// What a confirmation or reset function decided.
    enum FunctionStatus: String { case success, pending, fail }

    /// Runs a confirmation or reset function and reads its `{status = ...}`.
    func runStatusFunction(_ name: String, app: AppRuntime, arguments: [LuaValue], role: String) async throws -> FunctionStatus {
        let result = try await callPlugin(name, app: app, arguments: arguments)
        guard case .table(let t) = result, let text = t["status"].stringValue, let status = FunctionStatus(rawValue: text) else {
            throw ServiceError(
                .functionExecutionError,
                "\(role) function '\(name)' must return {status = \"success\" | \"pending\" | \"fail\"}")
        }
        return status
    }
}
