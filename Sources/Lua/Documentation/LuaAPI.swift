// SPDX-License-Identifier: Apache-2.0
/// Everything a host gives its scripts, described: the globals (with the tables under them)
/// and the classes of the objects they return. The reference, the definition file and the
/// REPL's help are written from it.
public struct LuaAPI: Sendable {
    /// One class's description, without its Swift type.
    public struct Class: Sendable {
        public var name: String
        public var summary: String
        public var members: [(name: String, doc: LuaDoc, isMethod: Bool)]
        /// Members the class has but does not describe.
        public var undescribed: [String]
        public var fallback: (key: String, doc: LuaDoc)?

        /// A table of a known shape that bindings take or return (`Mail`): its fields, each
        /// `(name, type, summary)`. Plain Lua tables; no Swift class behind them.
        public static func shape(_ name: String, _ summary: String, fields: [(String, String, String)]) -> Class {
            Class(
                name: name, summary: summary, members: fields.map { ($0.0, LuaDoc($0.1, $0.2), false) }, undescribed: [],
                fallback: nil)
        }
    }

    public var globals: LuaModule
    public var classes: [Class]

    /// - Parameters:
    ///   - globals: the globals, as the host installs them.
    ///   - classes: every class whose objects a script can hold.
    ///   - shapes: the tables of a known shape that they take or return.
    public init(globals: LuaModule, classes: [any LuaObject.Type], shapes: [Class] = []) {
        self.globals = globals
        self.classes = classes.map { Self.describe($0) } + shapes
    }

    private static func describe<T: LuaObject>(_ type: T.Type) -> Class {
        let cls = T.luaClass
        let described = Set(cls.documentation.map(\.name))
        return Class(
            name: cls.name, summary: cls.summary, members: cls.documentation,
            undescribed: cls.members.keys.filter { !described.contains($0) }.sorted(), fallback: cls.fallbackDoc)
    }

    /// What a script can reach that has no description, or whose description does not parse,
    /// or that names a class the API does not have: `auth.dev.outbox`, `User.id`. Empty when
    /// the API is fully described.
    public var problems: [String] {
        var problems: [String] = []
        let known = Set(classes.map(\.name))
        func check(_ path: String, _ doc: LuaDoc?) {
            guard let doc else { return problems.append("\(path): no description") }
            if doc.summary.isEmpty { problems.append("\(path): empty summary") }
            for type in [doc.type] + doc.overloads {
                if type.hasPrefix("("), LuaSignature(type) == nil { problems.append("\(path): cannot read the type \(type)") }
                for name in Self.classNames(in: type) where !known.contains(name) {
                    problems.append("\(path): names the class \(name), which is not described")
                }
            }
        }
        func walk(_ module: LuaModule) {
            if module.summary.isEmpty, !module.path.isEmpty { problems.append("\(module.path): no summary") }
            for entry in module.entries {
                switch entry {
                case .function(let key, let function): check(module.path(of: key), function.doc)
                case .module(_, let inner): walk(inner)
                case .value(let key, _, let doc): check(module.path(of: key), doc)
                }
            }
        }
        walk(globals)
        for cls in classes {
            if cls.summary.isEmpty { problems.append("\(cls.name): no summary") }
            problems += cls.undescribed.map { "\(cls.name).\($0): no description" }
            for member in cls.members { check(cls.name + (member.isMethod ? ":" : ".") + member.name, member.doc) }
            if let fallback = cls.fallback { check("\(cls.name).\(fallback.key)", fallback.doc) }
        }
        return problems
    }

    /// The words of a type that start with a capital letter: the classes it names.
    static func classNames(in type: String) -> [String] {
        var names: [String] = []
        var word = ""
        for c in type + " " {
            if c.isLetter || c.isNumber || c == "_" {
                word.append(c)
            } else {
                if let first = word.first, first.isUppercase { names.append(word) }
                word = ""
            }
        }
        return names
    }

    /// Every function and value of the globals and the tables under them, depth first, with
    /// the path a script writes.
    public var entries: [(path: String, doc: LuaDoc?, module: LuaModule?)] {
        var all: [(String, LuaDoc?, LuaModule?)] = []
        func walk(_ module: LuaModule) {
            for entry in module.entries {
                switch entry {
                case .function(let key, let function): all.append((module.path(of: key), function.doc, nil))
                case .module(let key, let inner):
                    all.append((module.path(of: key), nil, inner))
                    walk(inner)
                case .value(let key, _, let doc): all.append((module.path(of: key), doc, nil))
                }
            }
        }
        walk(globals)
        return all
    }
}
