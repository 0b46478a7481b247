// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON

extension PluginContext {
    /// `context.log(...)`: one info line in the server log, tagged with app and function.
    var log: LuaFunction {
        LuaFunction("log") { [self] call in
            let invocation = try invocation("context.log")
            var parts: [String] = []
            for i in 1..<(call.count + 1) {
                let value = try call.value(i)
                switch value {
                case .string(let s): parts.append(s.description)
                case .table, .object:
                    parts.append((try? LuaEJSON.ejson(value).encodedString(.relaxed)) ?? value.typeName)
                case .integer(let n): parts.append(String(n))
                case .number(let d): parts.append(String(d))
                case .boolean(let b): parts.append(String(b))
                case .nil: parts.append("nil")
                case .function: parts.append("function")
                }
            }
            var line = parts.joined(separator: "\t")
            if line.utf8.count > PluginLimits.logLineBytes {
                line = String(decoding: line.utf8.prefix(PluginLimits.logLineBytes), as: UTF8.self) + "..."
            }
            services.logger.info("\(line)", metadata: ["app": "\(services.appId)", "plugin": "\(invocation.function)"])
            effects(invocation).logged(line)
            return .none
        }
    }
}
