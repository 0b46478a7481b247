// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON
import NIOHTTP1

extension PluginContext {
    /// `context.http.get/post/put/delete{url, headers, body}` (the prelude passes the method
    /// first): `{status, headers, body}`, through ``OutboundHTTP``'s gate. A table `body` is sent
    /// as JSON.
    var http: LuaFunction {
        LuaFunction("http") { [self] call in
            let invocation = try invocation("context.http")
            let method = HTTPMethod(rawValue: try call.string(1))
            let request = try call.table(2)
            guard let text = request["url"].stringValue, let url = OutboundURL(text) else {
                throw LuaArgumentError(index: 1, message: "field 'url' must be an http or https URL with a host")
            }
            var headers: [(String, String)] = []
            if case .table(let t) = request["headers"] {
                for (key, value) in t.fields {
                    guard let name = key.stringValue, let value = value.stringValue,
                        !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 58 }),
                        !value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 })
                    else { throw LuaArgumentError(index: 1, message: "field 'headers' must map header names to strings") }
                    guard name.lowercased() != "host" else { throw LuaArgumentError(index: 1, message: "the Host header is the URL's") }
                    headers.append((name, value))
                }
            }
            var body: [UInt8]?
            switch request["body"] {
            case .nil: break
            case .string(let s): body = Array(s.bytes)
            case let value:
                body = try LuaEJSON.ejson(value).encoded(.relaxed)
                if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/json")) }
            }
            if let body, body.count > OutboundHTTP.maxRequestBytes {
                throw LuaArgumentError(index: 1, message: "field 'body' is over \(OutboundHTTP.maxRequestBytes / 1024) KiB")
            }
            let deadline = invocation.deadline ?? services.timeLimit
            let left = deadline - invocation.started.duration(to: .now)
            guard left > .zero else { throw LuaRaise("context.http: the call's deadline has passed") }
            let (effects, allowList) = (effects(invocation), invocation.httpAllowList)
            let outbound = PluginHTTPRequest(method: method.rawValue, text: text, url: url, headers: headers, body: body)
            return .async { [Self.lua(try await effects.http(outbound, allowList: allowList, timeout: left))] }
        }
    }

    /// An answer as `context.http` returns it: `{status, headers, body}`.
    static func lua(_ answer: OutboundHTTP.Answer) -> LuaValue {
        var headerTable = LuaTable()
        for (name, value) in answer.headers { headerTable[name] = .string(LuaString(value)) }
        return .table(
            LuaTable([
                "status": .integer(Int64(answer.status)), "headers": .table(headerTable),
                "body": .string(LuaString(bytes: answer.body)),
            ]))
    }
}
