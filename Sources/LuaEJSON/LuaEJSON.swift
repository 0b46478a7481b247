// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua

/// The mapping between EJSON and Lua values that plugins see (documented in docs/plugins.md, "Values: EJSON and Lua"):
///
/// | EJSON | Lua |
/// |---|---|
/// | null | `ejson.null` (a userdata, so that arrays keep their length) |
/// | bool, string | boolean, string |
/// | int32, int64 | integer (`math.type(x) == "integer"`); back: int32 when it fits, else int64 |
/// | double | float (a float stays a float, `3.0` included) |
/// | array | sequence `{1..n}` |
/// | document | table with string keys (other tables too; integer keys become "1", "2", ...) |
/// | ObjectId, Date, Binary, Decimal128, Timestamp, regex, MinKey, MaxKey | an `EJSON` userdata that keeps the value exactly (`v.type`, `v.hex`, `v.millis`, `tostring(v)`) |
///
/// An empty table goes out as an empty document.
public enum LuaEJSON {
    /// A conversion that cannot be done, with the path of the offending value.
    public struct ConversionError: Error, CustomStringConvertible {
        public var description: String
    }

    /// EJSON to Lua.
    public static func lua(_ value: EJSON) -> LuaValue {
        switch value {
        case .null: return .object(EJSONValue.null)
        case .bool(let b): return .boolean(b)
        case .int32(let i): return .integer(Int64(i))
        case .int64(let i): return .integer(i)
        case .double(let d): return .number(d)
        case .string(let s): return .string(LuaString(s))
        case .array(let items): return .table(LuaTable(array: items.map(lua)))
        case .document(let doc):
            var table = LuaTable()
            for (key, item) in doc { table[key] = lua(item) }
            return .table(table)
        default: return .object(EJSONValue(value))
        }
    }

    /// A document as a Lua table.
    public static func lua(_ document: EJSONDocument) -> LuaValue { lua(.document(document)) }

    /// Lua to EJSON. Refuses functions, foreign userdata, non-UTF-8 strings and keys that are
    /// neither strings nor integers, naming where they were (`path` prefixes that place).
    public static func ejson(_ value: LuaValue, path: String = "") throws(ConversionError) -> EJSON {
        do {
            return try convert(value)
        } catch {
            throw ConversionError(description: error.description(under: path))
        }
    }

    /// A refused value, with its place gathered on the way out (so a conversion that succeeds
    /// builds no path at all).
    private struct Refusal: Error {
        enum Reason {
            case stringNotUTF8, keyNotUTF8, userdata, function
            case keyType(String)
        }
        enum Step {
            case index(Int)
            case field(String)
        }

        var reason: Reason
        /// From the refused value outwards.
        var steps: [Step] = []

        func adding(_ step: Step) -> Refusal {
            var refusal = self
            refusal.steps.append(step)
            return refusal
        }

        func description(under root: String) -> String {
            var path = root
            for step in steps.reversed() {
                switch step {
                case .index(let i): path += "[\(i)]"
                case .field(let name): path += path.isEmpty ? name : ".\(name)"
                }
            }
            return switch reason {
            case .stringNotUTF8: "string is not valid UTF-8\(at: path)"
            case .keyNotUTF8: "key is not valid UTF-8\(at: path)"
            case .userdata: "cannot convert a userdata value\(at: path) to EJSON"
            case .function: "cannot convert a function\(at: path) to EJSON"
            case .keyType(let type): "a \(type) key\(at: path) cannot be an EJSON field name"
            }
        }
    }

    private static func convert(_ value: LuaValue) throws(Refusal) -> EJSON {
        switch value {
        case .nil: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return Int32(exactly: i).map(EJSON.int32) ?? .int64(i)
        case .number(let d): return .double(d)
        case .string(let s):
            guard let text = s.text else { throw Refusal(reason: .stringNotUTF8) }
            return .string(text)
        case .object(let box):
            guard let v = box.object as? EJSONValue else { throw Refusal(reason: .userdata) }
            return v.value
        case .function:
            throw Refusal(reason: .function)
        case .table(let t):
            var items: [EJSON] = []
            items.reserveCapacity(t.array.count)
            for (i, item) in t.array.enumerated() {
                do { items.append(try convert(item)) } catch { throw error.adding(.index(i + 1)) }
            }
            if t.fields.isEmpty && !items.isEmpty { return .array(items) }
            var pairs = items.enumerated().map { (String($0.offset + 1), $0.element) }
            for (key, item) in t.fields {
                let name: String
                switch key {
                case .string(let s):
                    guard let text = s.text else { throw Refusal(reason: .keyNotUTF8) }
                    name = text
                case .integer(let i): name = String(i)
                default:
                    throw Refusal(reason: .keyType(key.typeName))
                }
                do { pairs.append((name, try convert(item))) } catch { throw error.adding(.field(name)) }
            }
            // Lua tables have no order: sort (sequence keys first, numerically) so output is stable.
            pairs.sort { a, b in
                switch (Int(a.0), Int(b.0)) {
                case let (x?, y?): return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return a.0 < b.0
                }
            }
            return .document(EJSONDocument(pairs))
        }
    }
}

extension String.StringInterpolation {
    fileprivate mutating func appendInterpolation(at path: String) {
        if !path.isEmpty { appendLiteral(" (at \(path))") }
    }
}

/// An EJSON value with no native Lua type (ObjectId, Date, Binary, ...), and `null`, as a
/// userdata that converts back to exactly the same value.
public final class EJSONValue: LuaObject {
    /// The value, exactly as it came.
    public let value: EJSON
    public init(_ value: EJSON) { self.value = value }

    /// The one `null` (so `v == ejson.null` works).
    public static let null = EJSONValue(.null)

    /// The EJSON type name: `objectId`, `date`, `binary`, `decimal128`, `timestamp`, `regex`, `minKey`, `maxKey`, `null`.
    public var typeName: String {
        switch value {
        case .null: "null"
        case .objectId: "objectId"
        case .date: "date"
        case .binary: "binary"
        case .decimal128: "decimal128"
        case .timestamp: "timestamp"
        case .regularExpression: "regex"
        case .minKey: "minKey"
        case .maxKey: "maxKey"
        default: "other"
        }
    }

    public static let luaClass = LuaClass<EJSONValue>(
        "EJSON",
        summary: "A value JSON lacks (an ObjectId, a date, binary data, ...) or null, as it came; "
            + "`tostring` writes it as the shell does: `ObjectId(\"...\")`, `Date(\"...\")`.",
        members: [
            .property(
                "type", "string",
                "`objectId`, `date`, `binary`, `decimal128`, `timestamp`, `regex`, `minKey`, `maxKey` or `null`"
            ) { .string(LuaString($0.typeName)) },
            .property("hex", "string?", "an ObjectId's 24 hexadecimal digits") {
                if case .objectId(let id) = $0.value { .string(LuaString(id.hex)) } else { .nil }
            },
            .property("millis", "integer?", "a date's milliseconds after the Unix epoch") {
                if case .date(let ms) = $0.value { .integer(ms) } else { .nil }
            },
        ],
        description: { v in
            switch v.value {
            case .null: "null"
            case .objectId(let id): "ObjectId(\"\(id.hex)\")"
            case .date(let ms): "Date(\"\(ISODate.format(milliseconds: ms))\")"
            default: v.value.encodedString(.canonical)
            }
        })
}

/// The `ejson` library: `null`, `objectId([hex])`, `date([millis])`, `encode(v)`, `decode(text)`.
/// The plugin sandbox installs it as the global `ejson`; authsh as `auth.ejson`.
public enum EJSONLibrary {
    /// The library's functions as a table.
    /// - Parameter now: the clock, in Unix seconds, for new ObjectIds and dates.
    public static func table(now: @escaping @Sendable () -> Int64) -> LuaTable { module("ejson", now: now).table }

    /// The library, described, at `path` (`auth.ejson` in authsh).
    public static func module(_ path: String, now: @escaping @Sendable () -> Int64) -> LuaModule {
        var m = LuaModule(
            path,
            summary: "Canonical Extended JSON, as plugins and the server's functions see values: "
                + "the types JSON lacks are `EJSON` objects.")
        m.add("null", .object(EJSONValue.null), LuaDoc("EJSON", "JSON's null (`v == \(path).null`); a Lua nil is no value at all."))
        m.add(
            LuaFunction(
                "\(path).objectId", "(hex?: string): EJSON",
                "An ObjectId: from 24 hexadecimal digits, or a new one stamped with this machine's clock."
            ) { call in
                guard let hex = try call.optionalString(1) else {
                    return .one(.object(EJSONValue(.objectId(ObjectId(seconds: UInt32(truncatingIfNeeded: now()))))))
                }
                guard let id = ObjectId(hex: hex) else {
                    throw LuaArgumentError(index: 1, message: "an ObjectId is 24 hexadecimal digits")
                }
                return .one(.object(EJSONValue(.objectId(id))))
            })
        m.add(
            LuaFunction("\(path).date", "(millis?: integer): EJSON", "A date: `millis` after the Unix epoch, or now.") { call in
                let ms = try call.optionalInteger(1) ?? now() * 1000
                return .one(.object(EJSONValue(.date(ms))))
            })
        m.add(encoder("\(path).encode", .canonical))
        m.add(decoder("\(path).decode"))
        return m
    }

    /// `name(value)`: the value as EJSON text in `format`.
    public static func encoder(_ name: String, _ format: EJSON.Mode) -> LuaFunction {
        let kind = format == .canonical ? "canonical Extended JSON text" : "JSON text (relaxed Extended JSON for the values JSON lacks)"
        return LuaFunction(name, "(value: any): string", "`value` as \(kind).") { call in
            do {
                return .one(.string(LuaString(try LuaEJSON.ejson(try call.value(1)).encodedString(format))))
            } catch let e as LuaEJSON.ConversionError {
                throw LuaArgumentError(index: 1, message: e.description)
            }
        }
    }

    /// `name(text)`: Extended JSON (canonical or relaxed) or plain JSON text as a Lua value.
    public static func decoder(_ name: String) -> LuaFunction {
        LuaFunction(name, "(text: string): any", "JSON or Extended JSON (canonical or relaxed) text as a Lua value.") { call in
            do {
                return .one(LuaEJSON.lua(try EJSON(parsing: try call.bytes(1))))
            } catch let e as EJSONError {
                throw LuaRaise("\(name): \(e)")
            }
        }
    }
}
