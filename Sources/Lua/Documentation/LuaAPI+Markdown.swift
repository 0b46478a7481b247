// SPDX-License-Identifier: Apache-2.0
extension LuaAPI {
    /// The reference as Markdown: a section per table of bindings (the globals first) and per
    /// class, each a table of its members with their types. `level` is the sections' heading
    /// level.
    public func markdown(level: Int = 2) -> String {
        let heading = String(repeating: "#", count: level)
        var out = ""
        func section(_ title: String, _ summary: String, rows: [(String, String)]) {
            out += "\(heading) \(title)\n\n"
            if !summary.isEmpty { out += summary + "\n\n" }
            out += "| | |\n|---|---|\n"
            for (name, text) in rows { out += "| \(Self.cell(name)) | \(Self.cell(text)) |\n" }
            out += "\n"
        }
        func walk(_ module: LuaModule, title: String) {
            var rows: [(String, String)] = []
            var inner: [LuaModule] = []
            for entry in module.entries {
                switch entry {
                case .function(let key, let function):
                    let doc = function.doc ?? LuaDoc("()", "")
                    rows.append(Self.row(module.path(of: key), doc))
                case .module(let key, let table):
                    rows.append(("`\(module.path(of: key))`", "\(Self.firstSentence(table.summary)) See [below](#\(Self.anchor(table.path)))."))
                    inner.append(table)
                case .value(let key, _, let doc): rows.append(Self.row(module.path(of: key), doc))
                }
            }
            section(title, module.summary, rows: rows)
            for table in inner { walk(table, title: "`\(table.path)`") }
        }
        walk(globals, title: "Globals")
        for cls in classes {
            var rows = cls.members.map { Self.row(cls.name + ($0.isMethod ? ":" : ".") + $0.name, $0.doc) }
            if let fallback = cls.fallback { rows.append(Self.row("\(cls.name).\(fallback.key)", fallback.doc)) }
            section("`\(cls.name)`", cls.summary, rows: rows)
        }
        return out
    }

    /// A member's row: how it is written, with its type, and what it does.
    static func row(_ path: String, _ doc: LuaDoc) -> (String, String) {
        let written = doc.isFunction ? "`\(path)\(doc.type)`" : "`\(path)`: `\(doc.type)`"
        var text = doc.summary
        if !doc.overloads.isEmpty {
            text += " Also " + doc.overloads.map { "`\(path)\($0)`" }.joined(separator: ", ") + "."
        }
        return (written, text)
    }

    /// A table cell: one line, its pipes escaped (GitHub reads `\|` as a pipe even in code).
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    /// GitHub's anchor of a heading that is `path` in code: `auth.dev` is `#authdev`.
    static func anchor(_ path: String) -> String { path.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } }

    static func firstSentence(_ text: String) -> String {
        guard let end = text.firstRange(of: ". ") else { return text }
        return String(text[..<end.lowerBound]) + "."
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
