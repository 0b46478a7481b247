// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON
import Testing

/// Lua to EJSON: values that have no EJSON form are refused with the place they were at.
@Suite(.timeLimit(.minutes(5))) struct ConversionTests {
    /// A value, the path it is converted under, and the message expected.
    static func example(_ name: String) -> (LuaValue, String, String) {
        let function = LuaValue.function(LuaFunction("f") { _ in .one(nil) })
        switch name {
        case "nested": return (["a": ["b": [1, 2, function]]], "", "cannot convert a function (at a.b[3]) to EJSON")
        case "array": return ([1, function], "", "cannot convert a function (at [2]) to EJSON")
        case "array under a root": return ([1, function], "args", "cannot convert a function (at args[2]) to EJSON")
        case "field under a root": return (["name": function], "data", "cannot convert a function (at data.name) to EJSON")
        case "top level": return (function, "", "cannot convert a function to EJSON")
        case "string": return (["k": .string(LuaString(bytes: [0xFF]))], "", "string is not valid UTF-8 (at k)")
        case "key": return (["t": .table(LuaTable(fields: [true: 1]))], "", "a boolean key (at t) cannot be an EJSON field name")
        default: return ([["x": [["y": function]]]], "", "cannot convert a function (at [1].x[1].y) to EJSON")
        }
    }

    @Test(arguments: ["nested", "array", "array under a root", "field under a root", "top level", "string", "key", "deep"])
    func refusalsNameThePlace(example: String) {
        let (value, root, expected) = Self.example(example)
        #expect(throws: LuaEJSON.ConversionError.self) { try LuaEJSON.ejson(value, path: root) }
        do {
            _ = try LuaEJSON.ejson(value, path: root)
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func convertibleValuesKeepTheirShape() throws {
        let value: LuaValue = [
            "list": [1, 2.5, "x"], "doc": ["n": 3_000_000_000, "flag": true], "mixed": .table(LuaTable(array: [1], fields: ["k": "v"])),
        ]
        let converted = try LuaEJSON.ejson(value)
        #expect(
            converted
                == .document([
                    "doc": ["flag": true, "n": .int64(3_000_000_000)], "list": [.int32(1), .double(2.5), "x"], "mixed": ["1": .int32(1), "k": "v"],
                ]))
    }
}
