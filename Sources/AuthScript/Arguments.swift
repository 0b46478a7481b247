// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Lua
import LuaEJSON

extension LuaTable {
    /// Field `name` of an options table given as argument `argument`, which must be a string.
    func string(_ name: String, argument: Int32) throws -> String {
        guard let value = self[name].stringValue else {
            throw LuaArgumentError(index: argument, message: "field '\(name)' must be a string, got \(self[name].typeName)")
        }
        return value
    }
}

extension LuaCall {
    /// Named string arguments, given either as one table (`f{email = e, password = p}`) or in
    /// order (`f(e, p)`), starting at argument `first`. Missing or non-string ones raise an
    /// error naming the field.
    func strings(_ names: [String], from first: Int32) throws -> [String] {
        if isTable(first) {
            let options = try table(first)
            return try names.map { try options.string($0, argument: first) }
        }
        return try names.indices.map { try string(first + Int32($0)) }
    }

    /// Arguments `first...count` as EJSON (function arguments).
    func ejsonArguments(from first: Int32) throws -> [EJSON] {
        guard count >= first else { return [] }
        return try (first...count).map { i in
            do { return try LuaEJSON.ejson(try value(i)) } catch let e as LuaEJSON.ConversionError {
                throw LuaArgumentError(index: i, message: e.description)
            }
        }
    }

    /// An optional table field as an EJSON array (`args = {...}`).
    func ejsonArray(_ value: LuaValue, field: String, index: Int32) throws -> [EJSON] {
        switch value {
        case .nil: return []
        case .table(let t) where t.fields.isEmpty:
            do { return try t.array.map { try LuaEJSON.ejson($0) } } catch {
                throw LuaArgumentError(index: index, message: "field '\(field)': \(error)")
            }
        default:
            throw LuaArgumentError(index: index, message: "field '\(field)' must be a sequence, got \(value.typeName)")
        }
    }
}
