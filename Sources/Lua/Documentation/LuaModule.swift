// SPDX-License-Identifier: Apache-2.0
/// A table of bindings, each entry with its description: what a host installs as a global
/// table (`auth`, `credentials`) or as the globals themselves, and what the reference is made
/// from. The order of the entries is the order of the reference.
public struct LuaModule: Sendable {
    /// One entry of the table.
    public enum Entry: Sendable {
        /// A function; its description is its ``LuaFunction/doc``.
        case function(String, LuaFunction)
        /// A table of its own (`auth.dev`).
        case module(String, LuaModule)
        /// Any other value (an object, a string), with its description.
        case value(String, LuaValue, LuaDoc)

        public var key: String {
            switch self {
            case .function(let key, _), .module(let key, _), .value(let key, _, _): key
            }
        }
    }

    /// The path a script writes to reach it: `auth.dev`; empty for the globals.
    public let path: String
    /// What the table is for; Markdown.
    public var summary: String
    public private(set) var entries: [Entry] = []

    public init(_ path: String, summary: String) {
        self.path = path
        self.summary = summary
    }

    /// Adds `function` under the key its name ends with (`auth.sleep` under `sleep`).
    public mutating func add(_ function: LuaFunction) {
        entries.append(.function(String(function.name.split(separator: ".").last ?? ""), function))
    }

    /// Adds a table of its own; its path should be this one's and `key`.
    public mutating func add(_ key: String, _ module: LuaModule) { entries.append(.module(key, module)) }

    /// Adds a value that is neither a function nor a table of bindings.
    public mutating func add(_ key: String, _ value: LuaValue, _ doc: LuaDoc) { entries.append(.value(key, value, doc)) }

    /// The path of `key` in this table: `auth.dev.outbox`, or `login` among the globals.
    public func path(of key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The table a script sees.
    public var table: LuaTable {
        var t = LuaTable()
        for entry in entries {
            switch entry {
            case .function(let key, let function): t[key] = .function(function)
            case .module(let key, let module): t[key] = .table(module.table)
            case .value(let key, let value, _): t[key] = value
            }
        }
        return t
    }
}
