// SPDX-License-Identifier: Apache-2.0
/// What a script is told about one binding: its type, in the notation of the Lua language
/// server (LuaLS), and what it does.
///
/// The bindings carry these where they are defined, and everything a script can read about
/// them is made from them: the reference (`docs/lua-api.md`), the editors' definition file
/// (`types/authsh.lua`) and the REPL's `.help NAME`.
public struct LuaDoc: Sendable, Hashable {
    /// A function's parameters and results, `(creds: Credentials): User` (a `?` after a name
    /// marks an optional parameter, `...` the rest); a field's type, `string` or `User?`.
    public var type: String
    /// What it does, in a sentence or a few; Markdown.
    public var summary: String
    /// Other ways to call a function, each written as ``type`` is:
    /// `(account: {email: string, password: string})`.
    public var overloads: [String]

    public init(_ type: String, _ summary: String, overloads: [String] = []) {
        self.type = type
        self.summary = summary
        self.overloads = overloads
    }

    /// Whether this describes a function (its type starts with a parameter list).
    public var isFunction: Bool { type.hasPrefix("(") }
}
