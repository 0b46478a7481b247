// SPDX-License-Identifier: Apache-2.0
/// A Lua value as plain Swift data: what crosses between Lua and Swift by copy.
///
/// Integers and floats stay distinct (`math.type`), strings are bytes, tables are snapshots.
/// Functions written in Swift (`LuaFunction`) and Swift objects (`LuaObject`) travel as
/// themselves. Lua functions, threads and foreign userdata cannot leave Lua as values; read
/// them as a `LuaReference` instead.
public enum LuaValue: Sendable, Hashable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(LuaString)
    case table(LuaTable)
    case function(LuaFunction)
    case object(LuaObjectBox)

    /// The value's Lua type name (`type(v)` in Lua).
    public var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .object: "userdata"
        }
    }

    /// A Swift object as a Lua value.
    public static func object(_ object: some LuaObject) -> LuaValue { .object(LuaObjectBox(object)) }

    /// An integer from any Swift integer, or nil when it does not fit in Lua's 64-bit integers.
    public init?(exactly value: some BinaryInteger) {
        guard let v = Int64(exactly: value) else { return nil }
        self = .integer(v)
    }

    /// The string's text when it is valid UTF-8.
    public var stringValue: String? { if case .string(let s) = self { s.text } else { nil } }
    /// The integer, or a float with an exact integer value (Lua's conversion rule).
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .number(let d): Int64(exactly: d)
        default: nil
        }
    }
    /// The number as a Double (integers converted).
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }
    public var boolValue: Bool? { if case .boolean(let b) = self { b } else { nil } }
    public var tableValue: LuaTable? { if case .table(let t) = self { t } else { nil } }
    /// Lua truthiness: everything but nil and false.
    public var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): false
        default: true
        }
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(LuaString(value)) }
    public init(arrayLiteral elements: LuaValue...) { self = .table(LuaTable(array: elements)) }
    public init(dictionaryLiteral elements: (LuaValue, LuaValue)...) {
        var table = LuaTable()
        for (k, v) in elements { table[k] = v }
        self = .table(table)
    }
}

/// A Lua string: bytes, which may or may not be UTF-8.
public struct LuaString: Sendable, Hashable, CustomStringConvertible {
    public var bytes: [UInt8]
    public init(_ text: String) { bytes = Array(text.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }
    /// The text, or nil when the bytes are not valid UTF-8 (never repaired silently).
    public var text: String? { String(validating: bytes, as: UTF8.self) }
    /// The text with invalid sequences replaced by U+FFFD, for display only.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// A snapshot of a Lua table: its sequence `1...n` as `array`, every other key in `fields`.
public struct LuaTable: Sendable, Hashable {
    public var array: [LuaValue]
    public var fields: [LuaValue: LuaValue]

    public init(array: [LuaValue] = [], fields: [LuaValue: LuaValue] = [:]) {
        self.array = array
        self.fields = fields
    }

    /// A table with string keys.
    public init(_ fields: [String: LuaValue]) {
        self.init()
        for (k, v) in fields { self[.string(LuaString(k))] = v }
    }

    /// True when the table has no keys but `1...n`.
    public var isSequence: Bool { fields.isEmpty }
    public var isEmpty: Bool { array.isEmpty && fields.isEmpty }

    /// Reads or writes a key as Lua would; writing nil removes it. A nil or NaN key is
    /// ignored on write (Lua raises for it; `LuaState` refuses such tables when pushing).
    public subscript(key: LuaValue) -> LuaValue {
        get {
            if case .integer(let i) = key, i >= 1, i <= array.count { return array[Int(i) - 1] }
            return fields[LuaTable.normalized(key)] ?? .nil
        }
        set {
            let key = LuaTable.normalized(key)
            if case .nil = key { return }
            if case .number(let d) = key, d.isNaN { return }
            if case .integer(let i) = key, i >= 1, i <= array.count + 1 {
                let index = Int(i) - 1
                if case .nil = newValue {
                    if index < array.count {
                        // Keys after a hole leave the sequence.
                        for (offset, value) in array[(index + 1)...].enumerated() {
                            fields[.integer(i + 1 + Int64(offset))] = value
                        }
                        array.removeSubrange(index...)
                    }
                    return
                }
                if index < array.count {
                    array[index] = newValue
                } else {
                    array.append(newValue)
                    fields[key] = nil
                    // Pull following keys into the sequence.
                    var next = Int64(array.count + 1)
                    while let v = fields.removeValue(forKey: .integer(next)) {
                        array.append(v)
                        next += 1
                    }
                }
                return
            }
            if case .nil = newValue { fields[key] = nil } else { fields[key] = newValue }
        }
    }

    public subscript(key: String) -> LuaValue {
        get { self[.string(LuaString(key))] }
        set { self[.string(LuaString(key))] = newValue }
    }

    /// Floats with an integer value are integer keys in Lua.
    static func normalized(_ key: LuaValue) -> LuaValue {
        if case .number(let d) = key, let i = Int64(exactly: d) { return .integer(i) }
        return key
    }
}
