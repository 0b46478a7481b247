// SPDX-License-Identifier: Apache-2.0
/// A value of MongoDB Extended JSON v2 (EJSON), the body format of the App Services client API.
///
/// Unlike plain JSON, EJSON keeps the BSON types apart: a 32-bit integer, a 64-bit integer and a
/// double are three different values, and ObjectId, Date and Binary have their own cases.
/// Decode with ``EJSON/init(parsing:)`` (canonical, relaxed or plain JSON); encode with
/// ``EJSON/encoded(_:)``.
public enum EJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    case string(String)
    case array([EJSON])
    case document(EJSONDocument)
    case objectId(ObjectId)
    /// Milliseconds since the Unix epoch (BSON's UTC datetime).
    case date(Int64)
    case binary(subtype: UInt8, bytes: [UInt8])
    /// A Decimal128, kept as its string form (authsh does no decimal arithmetic).
    case decimal128(String)
    case timestamp(seconds: UInt32, increment: UInt32)
    case regularExpression(pattern: String, options: String)
    case minKey
    case maxKey
}

extension EJSON {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// How deeply arrays and documents nest: 0 for a scalar, 1 for `[1]` or `{}`, 2 for `[[1]]`.
    public var depth: Int {
        switch self {
        case .array(let items): 1 + (items.lazy.map(\.depth).max() ?? 0)
        case .document(let doc): 1 + (doc.values.lazy.map(\.depth).max() ?? 0)
        default: 0
        }
    }

    /// The document, if this is a document.
    public var documentValue: EJSONDocument? {
        if case .document(let d) = self { return d }
        return nil
    }

    /// The array, if this is an array.
    public var arrayValue: [EJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Any integer case (int32, int64, or a double with an integral value) as Int64.
    public var integerValue: Int64? {
        switch self {
        case .int32(let v): return Int64(v)
        case .int64(let v): return v
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }

    /// Any number as a Double.
    public var doubleValue: Double? {
        switch self {
        case .int32(let v): return Double(v)
        case .int64(let v): return Double(v)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The field `key`, if this is a document that has it.
    public subscript(key: String) -> EJSON? {
        documentValue?[key]
    }

    /// The name of this value's type, as error messages say it ("string", "document", ...).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int32: return "int"
        case .int64: return "long"
        case .double: return "double"
        case .string: return "string"
        case .array: return "array"
        case .document: return "document"
        case .objectId: return "objectId"
        case .date: return "date"
        case .binary: return "binary"
        case .decimal128: return "decimal"
        case .timestamp: return "timestamp"
        case .regularExpression: return "regex"
        case .minKey: return "minKey"
        case .maxKey: return "maxKey"
        }
    }
}

extension EJSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral,
    ExpressibleByIntegerLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: EJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, EJSON)...) {
        self = .document(EJSONDocument(elements))
    }
    public init(floatLiteral value: Double) { self = .double(value) }
    /// An integer literal is an Int64, as plain JSON integers are.
    public init(integerLiteral value: Int64) { self = .int64(value) }
}
