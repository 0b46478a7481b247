// SPDX-License-Identifier: Apache-2.0
extension LuaAPI {
    /// What the REPL's `.help NAME` prints: a function's call and description, a table's
    /// entries, a class's members. `name` is written as a script writes it (`login`,
    /// `auth.dev`, `auth.dev.outbox`) or a class member (`User`, `User:linkIdentity`,
    /// `user.id`); nil when nothing has that name.
    public func help(_ name: String) -> String? {
        if let entry = entries.first(where: { $0.path == name }) {
            if let module = entry.module { return listing(module) }
            if let doc = entry.doc { return Self.describe(name, doc) }
        }
        let parts = Self.memberPath(name)
        guard let cls = classes.first(where: { $0.name.lowercased() == parts.className.lowercased() }) else { return nil }
        guard let member = parts.member else {
            var out = "\(cls.name): \(cls.summary)\n"
            for m in cls.members {
                out += "  \(cls.name)\(m.isMethod ? ":" : ".")\(m.name)\(m.doc.isFunction ? m.doc.type : ": " + m.doc.type)\n"
            }
            return out
        }
        if let m = cls.members.first(where: { $0.name == member }) {
            return Self.describe("\(cls.name)\(m.isMethod ? ":" : ".")\(m.name)", m.doc)
        }
        return nil
    }

    private func listing(_ module: LuaModule) -> String {
        var out = "\(module.path): \(module.summary)\n"
        for entry in module.entries {
            let path = module.path(of: entry.key)
            switch entry {
            case .function(_, let function): out += "  \(path)\(function.doc?.type ?? "()")\n"
            case .module: out += "  \(path)\n"
            case .value(_, _, let doc): out += "  \(path): \(doc.type)\n"
            }
        }
        return out
    }

    private static func describe(_ path: String, _ doc: LuaDoc) -> String {
        var out = doc.isFunction ? path + doc.type : path + ": " + doc.type
        for overload in doc.overloads { out += "\n" + path + overload }
        return out + "\n  " + doc.summary.replacingOccurrences(of: "\n", with: "\n  ") + "\n"
    }

    /// `User:linkIdentity` or `user.id` as a class name and a member.
    private static func memberPath(_ name: String) -> (className: String, member: String?) {
        guard let cut = name.firstIndex(where: { $0 == ":" || $0 == "." }) else { return (name, nil) }
        return (String(name[..<cut]), String(name[name.index(after: cut)...]))
    }
}
