// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import Lua
import LuaEJSON

/// `auth.http{method =, url =, headers =, body =, timeout =}`: one HTTP request, so that a
/// script can call an identity provider's API with the token a sign-in returned (GitHub's
/// `/user`, as Firebase's docs show). Async like every binding. Returns the status, the
/// headers (a table, lowercase names) and the body as a string; a table `body` is sent as
/// JSON. Redirects are returned, not followed. A URL on the embedded server's placeholder
/// origin (`auth.dev.idp.githubAPI` on the embedded server) goes to the embedded server.
enum HTTPBinding {
    static func function(server: ScriptServer) -> LuaFunction {
        LuaFunction(
            "auth.http",
            "(request: {url: string, method: string?, headers: table<string, string>?, body: string|table?, timeout: number?}): "
                + "integer, table<string, string>, string",
            "One HTTP request (to call a provider's API with `user.providerTokens.accessToken`); returns the status, the headers "
                + "(lowercase names) and the body. A table `body` is sent as JSON; `method` defaults to GET, `timeout` to 60 "
                + "seconds. Redirects are returned, not followed."
        ) { call in
            let options = try call.table(1)
            let url = try options.string("url", argument: 1)
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw LuaArgumentError(index: 1, message: "field 'url' must be an http:// or https:// URL")
            }
            let method = options["method"] == .nil ? "GET" : try options.string("method", argument: 1).uppercased()
            guard !method.isEmpty, method.allSatisfy({ $0.isLetter }) else {
                throw LuaArgumentError(index: 1, message: "field 'method' must be a method name such as GET or POST")
            }
            var headers: [(String, String)] = []
            if case .table(let t) = options["headers"] {
                for (key, value) in t.fields {
                    guard let name = key.stringValue, let text = value.stringValue,
                        !name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" }), !text.contains(where: { $0 == "\r" || $0 == "\n" })
                    else { throw LuaArgumentError(index: 1, message: "field 'headers' must map header names to one-line strings") }
                    headers.append((name, text))
                }
            } else if options["headers"] != .nil {
                throw LuaArgumentError(index: 1, message: "field 'headers' must be a table")
            }
            var body: [UInt8]?
            switch options["body"] {
            case .nil: break
            case .string(let s): body = s.bytes
            case .table:
                do { body = try LuaEJSON.ejson(options["body"]).encoded(.relaxed) } catch let e as LuaEJSON.ConversionError {
                    throw LuaArgumentError(index: 1, message: "field 'body': \(e.description)")
                }
                if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/json")) }
            default:
                throw LuaArgumentError(index: 1, message: "field 'body' must be a string or a table (sent as JSON)")
            }
            var timeout = Duration.seconds(60)
            if options["timeout"] != .nil {
                guard let seconds = options["timeout"].doubleValue, seconds > 0, seconds <= 3600 else {
                    throw LuaArgumentError(index: 1, message: "field 'timeout' must be a number of seconds (at most 3600)")
                }
                timeout = .milliseconds(Int64(seconds * 1000))
            }
            let request = TransportRequest(method: method, url: url, headers: headers, body: body, timeout: timeout)
            return perform(call) {
                let response = try await ScriptTransport(server: server).send(request)
                var table = LuaTable()
                for (name, value) in response.headers { table[.string(LuaString(name.lowercased()))] = .string(LuaString(value)) }
                return [.integer(Int64(response.status)), .table(table), .string(LuaString(bytes: response.body))]
            }
        }
    }
}
