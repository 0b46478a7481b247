// SPDX-License-Identifier: Apache-2.0
extension LuaAPI {
    /// The API as a definition file of the Lua language server (`---@meta`): editors that use
    /// it (VS Code's Lua extension, Neovim's lua_ls) complete and check scripts against it.
    /// - Parameters:
    ///   - name: the library's name on the `---@meta` line.
    ///   - notice: a comment for its second line (where it came from).
    public func definitions(name: String, notice: String = "") -> String {
        var out = "---@meta \(name)\n" + (notice.isEmpty ? "" : "-- \(notice)\n") + "\n"
        for cls in classes {
            out += Self.comment(cls.summary)
            out += "---@class \(cls.name)\n"
            for member in cls.members where !member.isMethod {
                out += "---@field \(member.name) \(member.doc.type) \(Self.oneLine(member.doc.summary))\n"
            }
            if let fallback = cls.fallback {
                out += "---@field [string] \(Self.functionType(fallback.doc.type)) \(Self.oneLine(fallback.doc.summary))\n"
            }
            out += "local \(cls.name) = {}\n\n"
            for member in cls.members where member.isMethod {
                out += Self.function("\(cls.name):\(member.name)", member.doc)
            }
        }
        func walk(_ module: LuaModule) {
            for entry in module.entries {
                switch entry {
                case .function(let key, let function):
                    out += Self.function(module.path(of: key), function.doc ?? LuaDoc("()", ""))
                case .module(let key, let table):
                    out += Self.comment(table.summary) + "\(module.path(of: key)) = {}\n\n"
                    walk(table)
                case .value(let key, _, let doc):
                    out += Self.comment(doc.summary) + "---@type \(doc.type)\n\(module.path(of: key)) = nil\n\n"
                }
            }
        }
        walk(globals)
        return out
    }

    /// `---@param`, `---@return` and `---@overload` lines, then an empty function.
    static func function(_ path: String, _ doc: LuaDoc) -> String {
        var out = comment(doc.summary)
        guard let signature = LuaSignature(doc.type) else { return out + "function \(path)() end\n\n" }
        for p in signature.parameters {
            out += "---@param \(p.name)\(p.isOptional && p.name != "..." ? "?" : "") \(p.type)\n"
        }
        for r in signature.results { out += "---@return \(r)\n" }
        for overload in doc.overloads { out += "---@overload \(functionType(overload))\n" }
        return out + "function \(signature.call(path)) end\n\n"
    }

    /// `(a: T): R` as LuaLS writes a function type: `fun(a: T): R`.
    static func functionType(_ type: String) -> String { type.hasPrefix("(") ? "fun" + type : type }

    /// Markdown as `---` comment lines.
    static func comment(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { "---" + $0 }.joined(separator: "\n") + "\n"
    }

    static func oneLine(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ") }
}
