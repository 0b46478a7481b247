// SPDX-License-Identifier: Apache-2.0
import CLua
import LuaShims

/// Formats Lua values for people: sorted keys, nested indentation, cycle-safe, depth-limited,
/// strings quoted, optional ANSI colors. Reads tables raw; only `__tostring` is ever called
/// (protected), for values that define it.
public struct LuaFormatter {
    /// ANSI colors (only for a terminal, never with NO_COLOR).
    public var color: Bool
    /// Tables deeper than this print as `{...}`.
    public var maxDepth: Int
    /// Lines longer than this break a table over several lines.
    public var width: Int
    /// At most this many entries of one table are shown.
    public var maxEntries: Int

    public init(color: Bool = false, maxDepth: Int = 4, width: Int = 80, maxEntries: Int = 200) {
        self.color = color
        self.maxDepth = maxDepth
        self.width = width
        self.maxEntries = maxEntries
    }

    /// Formats every result of a run.
    public func format(_ results: LuaResults) -> [String] {
        (0..<results.count).map { i in results.withValue(i) { L, index in format(L, index) } }
    }

    /// Formats a reference's value.
    public func format(_ reference: LuaReference) -> String {
        let L = reference.state.L
        reference.push(on: L)
        defer { clua_pop(L, 1) }
        return format(L, lua_gettop(L))
    }

    func format(_ L: OpaquePointer, _ index: Int32) -> String {
        var path = Set<UnsafeRawPointer>()
        return render(L, lua_absindex(L, index), depth: 0, indent: "", path: &path)
    }

    private enum Style: String {
        case string = "32", number = "36", keyword = "35", opaque = "2"
    }

    private func paint(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func render(
        _ L: OpaquePointer, _ index: Int32, depth: Int, indent: String, path: inout Set<UnsafeRawPointer>
    ) -> String {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return paint("nil", .keyword)
        case LUA_TBOOLEAN: return paint(lua_toboolean(L, index) != 0 ? "true" : "false", .keyword)
        case LUA_TNUMBER: return paint(numberText(L, index), .number)
        case LUA_TSTRING: return paint(LuaFormatter.quote(LuaStack.bytes(at: index, on: L)), .string)
        case LUA_TTABLE:
            if let custom = metaTostring(L, index) { return custom }
            return renderTable(L, index, depth: depth, indent: indent, path: &path)
        default:
            if let custom = metaTostring(L, index) { return paint(custom, .opaque) }
            let name = String(cString: clua_typename(L, index))
            let address = lua_topointer(L, index).map { "\($0)" } ?? "?"
            return paint("\(name): \(address)", .opaque)
        }
    }

    private func numberText(_ L: OpaquePointer, _ index: Int32) -> String {
        lua_pushvalue(L, index)  // a copy: lua_tolstring converts in place
        defer { clua_pop(L, 1) }
        return String(decoding: LuaStack.bytes(at: -1, on: L), as: UTF8.self)
    }

    /// The `__tostring` result, when the value's metatable has one.
    private func metaTostring(_ L: OpaquePointer, _ index: Int32) -> String? {
        guard lua_getmetatable(L, index) != 0 else { return nil }
        lua_pushstring(L, "__tostring")
        let has = lua_rawget(L, -2) != LUA_TNIL
        clua_pop(L, 2)
        guard has else { return nil }
        let ok = authsh_tostring(L, index) == LUA_OK
        defer { clua_pop(L, 1) }
        let text = String(decoding: LuaStack.bytes(at: -1, on: L), as: UTF8.self)
        return ok ? text : "<__tostring failed: \(text)>"
    }

    private func renderTable(
        _ L: OpaquePointer, _ index: Int32, depth: Int, indent: String, path: inout Set<UnsafeRawPointer>
    ) -> String {
        guard let pointer = lua_topointer(L, index) else { return "{}" }
        if path.contains(pointer) { return paint("<cycle>", .opaque) }
        if depth >= maxDepth { return "{...}" }
        guard lua_checkstack(L, 4) != 0 else { return "{...}" }
        path.insert(pointer)
        defer { path.remove(pointer) }

        // Collect keys raw: the sequence 1..n, then the rest sorted.
        let n = Int(lua_rawlen(L, index))
        var others: [(sort: SortKey, label: String, keyRef: Int32)] = []
        lua_pushnil(L)
        while lua_next(L, index) != 0 {  // stack: key, value
            clua_pop(L, 1)
            if lua_type(L, -1) == LUA_TNUMBER, lua_isinteger(L, -1) != 0 {
                let i = lua_tointegerx(L, -1, nil)
                if i >= 1 && i <= n { continue }
            }
            let sort = sortKey(L, -1)
            let label = keyLabel(L, -1)
            lua_pushvalue(L, -1)
            others.append((sort, label, luaL_ref(L, clua_registryindex)))
        }
        others.sort { $0.sort < $1.sort }
        defer { for entry in others { luaL_unref(L, clua_registryindex, entry.keyRef) } }

        let inner = indent + "  "
        var items: [String] = []
        for i in 0..<min(n, maxEntries) {
            lua_rawgeti(L, index, lua_Integer(i + 1))
            items.append(render(L, lua_gettop(L), depth: depth + 1, indent: inner, path: &path))
            clua_pop(L, 1)
        }
        for entry in others.prefix(max(0, maxEntries - n)) {
            lua_rawgeti(L, clua_registryindex, lua_Integer(entry.keyRef))  // stack: key
            lua_rawget(L, index)  // stack: value
            items.append(entry.label + " = " + render(L, lua_gettop(L), depth: depth + 1, indent: inner, path: &path))
            clua_pop(L, 1)
        }
        let total = n + others.count
        if total > items.count { items.append(paint("... (\(total - items.count) more)", .opaque)) }
        if items.isEmpty { return "{}" }
        let flat = "{ " + items.joined(separator: ", ") + " }"
        if !flat.contains("\n"), visibleCount(flat) + indent.count <= width { return flat }
        return "{\n" + items.map { inner + $0 }.joined(separator: ",\n") + ",\n" + indent + "}"
    }

    /// Key order: integers and floats by value, then strings, then booleans, then the rest.
    private struct SortKey: Comparable {
        var rank: Int
        var number: Double
        var text: String
        static func < (a: SortKey, b: SortKey) -> Bool {
            (a.rank, a.number, a.text) < (b.rank, b.number, b.text)
        }
    }

    private func sortKey(_ L: OpaquePointer, _ index: Int32) -> SortKey {
        switch lua_type(L, index) {
        case LUA_TNUMBER: SortKey(rank: 0, number: lua_tonumberx(L, index, nil), text: "")
        case LUA_TSTRING: SortKey(rank: 1, number: 0, text: String(decoding: LuaStack.bytes(at: index, on: L), as: UTF8.self))
        case LUA_TBOOLEAN: SortKey(rank: 2, number: lua_toboolean(L, index) != 0 ? 1 : 0, text: "")
        default: SortKey(rank: 3, number: 0, text: "\(lua_topointer(L, index).map { "\($0)" } ?? "")")
        }
    }

    private func keyLabel(_ L: OpaquePointer, _ index: Int32) -> String {
        if let text = LuaStack.text(at: index, on: L), text.isLuaIdentifier { return text }
        var path = Set<UnsafeRawPointer>()
        return "[" + render(L, lua_absindex(L, index), depth: maxDepth, indent: "", path: &path) + "]"
    }

    private func visibleCount(_ text: String) -> Int {
        guard color else { return text.count }
        var count = 0
        var inEscape = false
        for c in text.unicodeScalars {
            if c == "\u{1B}" { inEscape = true } else if inEscape { if c == "m" { inEscape = false } } else { count += 1 }
        }
        return count
    }

    /// A Lua string literal for `bytes`: printable UTF-8 as is, escapes for the rest.
    public static func quote(_ bytes: [UInt8]) -> String {
        var out = "\""
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\t"): out += "\\t"
            case UInt8(ascii: "\r"): out += "\\r"
            case 0..<0x20, 0x7f: out += "\\\(b)"
            case 0x20..<0x7f: out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                // A valid UTF-8 sequence is kept; a stray byte becomes \xNN.
                let length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
                if length > 1, i + length <= bytes.count,
                    let text = String(validating: bytes[i..<(i + length)], as: UTF8.self), let scalar = text.unicodeScalars.first
                {
                    // A character that would act on the terminal rather than show (a C1 control,
                    // a bidi override, a zero-width one) is written as Lua's `\u{XXXX}` escape:
                    // the rule of the commands' TerminalText.
                    switch scalar.properties.generalCategory {
                    case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                    default:
                        out += text
                    }
                    i += length
                    continue
                }
                out += "\\x" + String(b, radix: 16, uppercase: true).leftPadded(2)
            }
            i += 1
        }
        return out + "\""
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
