// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// One statement of the store, written once for both engines.
///
/// The text is SQL that SQLite and PostgreSQL both accept; `?` marks each bound value (the
/// PostgreSQL engine numbers them `$1`, `$2`, ... once, here). Make each statement once, as a
/// `static let` of its table: engines prepare a statement once per connection, by its ``id``.
package final class SQL: Sendable, ExpressibleByStringLiteral {
    /// The text with `?` markers (SQLite's form).
    package let text: String
    /// The text with `$n` markers, and the row lock's clause.
    package let postgres: String
    /// Whether the rows it selects are locked until the transaction ends. SQLite needs no lock
    /// (its write transactions run one at a time); PostgreSQL takes row locks.
    package enum RowLock: Sendable {
        case none
        /// `FOR UPDATE`: wait for a row another transaction locked.
        case wait
        /// `FOR UPDATE SKIP LOCKED`: pass over rows another transaction locked (workers taking
        /// jobs from one queue take different ones).
        case skipLocked
    }
    package let lock: RowLock
    /// Whether an engine may keep it prepared on its connections (false for statements run
    /// once, such as migrations).
    package let prepared: Bool
    /// Unique per statement: the key of prepared-statement caches.
    package let id: Int

    private static let next = Atomic<Int>(0)

    package init(_ text: String, lock: RowLock = .none, prepared: Bool = true) {
        self.text = text
        self.lock = lock
        self.prepared = prepared
        let clause =
            switch lock {
            case .none: ""
            case .wait: " FOR UPDATE"
            case .skipLocked: " FOR UPDATE SKIP LOCKED"
            }
        postgres = Self.numberingMarkers(text) + clause
        id = Self.next.add(1, ordering: .relaxed).newValue
    }

    package convenience init(stringLiteral text: String) { self.init(text) }

    /// `?` outside quotes becomes `$1`, `$2`, ...
    private static func numberingMarkers(_ text: String) -> String {
        var result = ""
        var marker = 0
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "?" {
                marker += 1
                result += "$\(marker)"
                continue
            }
            result.append(character)
        }
        return result
    }
}

/// A value bound to a statement's `?`.
package enum SQLValue: Sendable {
    case text(String)
    case integer(Int64)
    case bool(Bool)
    case blob([UInt8])
    case null

    /// Text, or NULL for nil.
    package static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    /// An integer, or NULL for nil.
    package static func integer(_ value: Int64?) -> SQLValue { value.map(SQLValue.integer) ?? .null }
    package static func integer(_ value: Int) -> SQLValue { .integer(Int64(value)) }
}
