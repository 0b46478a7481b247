// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Hummingbird
import Lua
import LuaEJSON

extension DevController {
    /// Runs one plugin function as a unit test (``PluginProbe``): `{name, arguments, user,
    /// values, now, store, http}` in, `{result, error, logs, mails, storeWrites, customData,
    /// http, store}` out (`result` only when the function returned a value, `error` only when
    /// it failed). A plugin's failure is the answer's `error` (`{code, message}`), not the
    /// request's; a request that is malformed is a 400 naming the field.
    @Sendable func runPlugin(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let app = try context.app
        let body = try await InputFields.read(request, context: context).document
        guard let name = body["name"]?.stringValue, !name.isEmpty else {
            throw ServiceError(.invalidParameter, "parameter 'name' must be the plugin function's name")
        }
        var arguments: [LuaValue] = []
        switch body["arguments"] {
        case nil, .null?: break
        case .array(let list)?: arguments = list.map(LuaEJSON.lua)
        default: throw ServiceError(.invalidParameter, "parameter 'arguments' must be an array")
        }
        func document(_ key: String) throws(ServiceError) -> EJSONDocument? {
            switch body[key] {
            case nil, .null?: return nil
            case .document(let d)?: return d
            default: throw ServiceError(.invalidParameter, "parameter '\(key)' must be an object")
            }
        }
        let user = try document("user"), values = try document("values")
        var store: [String: EJSON] = [:]
        for (key, value) in try document("store") ?? [:] { store[key] = value }
        var now: Int64?
        if let value = body["now"], value != .null {
            guard let n = value.integerValue else { throw ServiceError(.invalidParameter, "parameter 'now' must be Unix seconds") }
            now = n
        }
        let probe = PluginProbe(user: user, now: now, store: store, answers: try Self.answers(body["http"]))
        var answer: EJSONDocument = [:]
        do {
            let result = try LuaEJSON.ejson(try await functions.runPlugin(name, app: app, arguments: arguments, probe: probe, values: values))
            if result != .null { answer["result"] = result }
        } catch let error as ServiceError where error.code == .functionNotFound {
            throw error
        } catch {
            // The test gets the failure; the server's log does not (it is no incident).
            let wire =
                if let lua = error as? LuaError { PluginFunctions.wireError(lua, function: name) } else {
                    (error as? ServiceError) ?? ServiceError(.functionExecutionError, "function '\(name)' could not run")
                }
            answer["error"] = ["code": .string(wire.code.rawValue), "message": .string(wire.message)]
        }
        for (key, value) in probe.report { answer[key] = value }
        return JSONResponse.make(.document(answer), mode: .relaxed)
    }

    /// The test's answers for `context.http`: `[{method?, url, status?, headers?, body?}]`
    /// (status 200 and an empty body by default; a table body is sent back as JSON).
    private static func answers(_ value: EJSON?) throws(ServiceError) -> [PluginProbe.Answer] {
        guard let value, value != .null else { return [] }
        guard case .array(let list) = value else { throw ServiceError(.invalidParameter, "parameter 'http' must be an array") }
        var answers: [PluginProbe.Answer] = []
        for (i, item) in list.enumerated() {
            guard case .document(let d) = item, let url = d["url"]?.stringValue else {
                throw ServiceError(.invalidParameter, "parameter 'http[\(i)]' must be an object with a 'url'")
            }
            var headers: [(String, String)] = []
            if case .document(let h)? = d["headers"] {
                for (name, v) in h {
                    guard let text = v.stringValue else {
                        throw ServiceError(.invalidParameter, "parameter 'http[\(i)].headers' must map names to strings")
                    }
                    headers.append((name, text))
                }
            }
            let body: [UInt8]
            switch d["body"] {
            case nil, .null?: body = []
            case .string(let s)?: body = Array(s.utf8)
            case let other?: body = other.encoded(.relaxed)
            }
            let status = d["status"]?.integerValue ?? 200
            guard (100...599).contains(status) else {
                throw ServiceError(.invalidParameter, "parameter 'http[\(i)].status' must be an HTTP status")
            }
            answers.append(
                .init(method: d["method"]?.stringValue, url: url, answer: .init(status: Int(status), headers: headers, body: body)))
        }
        return answers
    }
}
