// SPDX-License-Identifier: Apache-2.0
/// A function's type as ``LuaDoc`` writes it, `(name: string, opts?: {timeout: number}): User`,
/// taken apart into parameters and results.
public struct LuaSignature: Sendable, Hashable {
    public struct Parameter: Sendable, Hashable {
        /// The name, or `...` for the rest.
        public var name: String
        public var type: String
        public var isOptional: Bool
    }

    public var parameters: [Parameter]
    /// The results' types, in order; empty when the function returns nothing.
    public var results: [String]

    /// Parses `(a: T, b?: U): R, S`. Types may nest parentheses, braces and brackets
    /// (`fun(x: integer): string`, `{email: string}`); commas and colons inside them are theirs.
    /// Nil when `text` is not of that shape.
    public init?(_ text: String) {
        let chars = Array(text)
        guard chars.first == "(", let close = Self.matching(chars, from: 0) else { return nil }
        var parameters: [Parameter] = []
        for part in Self.split(String(chars[1..<close]), at: ",") {
            let colon = Self.split(part, at: ":", limit: 1)
            var name = colon[0]
            let type = colon.count > 1 ? colon[1] : (name == "..." ? "any" : "")
            guard !name.isEmpty, !type.isEmpty else { return nil }
            let optional = name.hasSuffix("?")
            if optional { name.removeLast() }
            parameters.append(Parameter(name: name, type: type, isOptional: optional))
        }
        let rest = String(chars[(close + 1)...]).trimmingSpaces
        var results: [String] = []
        if !rest.isEmpty {
            guard rest.hasPrefix(":") else { return nil }
            results = Self.split(String(rest.dropFirst()), at: ",")
            guard !results.isEmpty, !results.contains(where: \.isEmpty) else { return nil }
        }
        self.parameters = parameters
        self.results = results
    }

    /// How a call is written: `login(creds)`, `auth.sleep(seconds)`.
    public func call(_ name: String) -> String {
        name + "(" + parameters.map(\.name).joined(separator: ", ") + ")"
    }

    /// The index of the bracket that closes the one at `start`.
    static func matching(_ chars: [Character], from start: Int) -> Int? {
        var depth = 0
        for i in start..<chars.count {
            if "({[<".contains(chars[i]) { depth += 1 }
            if ")}]>".contains(chars[i]) {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    /// `text` split at `separator` where no bracket is open, each part trimmed.
    static func split(_ text: String, at separator: Character, limit: Int = .max) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if "({[<".contains(c) { depth += 1 }
            if ")}]>".contains(c) { depth -= 1 }
            if c == separator, depth == 0, parts.count < limit {
                parts.append(current.trimmingSpaces)
                current = ""
            } else {
                current.append(c)
            }
        }
        let last = current.trimmingSpaces
        if !last.isEmpty || !parts.isEmpty { parts.append(last) }
        return parts
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
