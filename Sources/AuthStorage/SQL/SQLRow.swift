// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A result row, read by column name (the name a statement's SELECT gives it: the column's,
/// or its `AS` alias). Both engines' rows conform, so each table decodes its rows once.
package protocol SQLRow {
    func text(_ column: String) throws -> String
    func optionalText(_ column: String) throws -> String?
    func int64(_ column: String) throws -> Int64
    func optionalInt64(_ column: String) throws -> Int64?
    func bool(_ column: String) throws -> Bool
    func bytes(_ column: String) throws -> [UInt8]
}

/// A row lacks a column or holds a value of another type than its table expects: the schema
/// is not what this code was written for.
package struct SQLRowError: Error {
    package let column: String

    /// The memberwise initialiser, for the whole package.
    package init(column: String) {
        self.column = column
    }
}

extension SQLRow {
    /// A JSON document column (profile data, custom data); nil when NULL or not a document.
    package func document(_ column: String) throws -> EJSONDocument? {
        guard let text = try optionalText(column), case .document(let document)? = try? EJSON(parsing: text) else { return nil }
        return document
    }
}

extension EJSONDocument {
    /// As stored in a document column.
    package var sqlValue: SQLValue { .text(EJSON.document(self).encodedString()) }
}

extension Optional where Wrapped == EJSONDocument {
    /// As stored in a document column (NULL for nil).
    package var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
}
