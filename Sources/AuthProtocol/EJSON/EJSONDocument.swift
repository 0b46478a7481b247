// SPDX-License-Identifier: Apache-2.0
/// An EJSON document: string keys in insertion order, each at most once.
///
/// Lookups scan the keys while a document is small and use a hash index once it has more
/// than ``indexThreshold`` fields, so that building or parsing a document is linear in its
/// size (a scan per key made 32,000 keys take seconds).
public struct EJSONDocument: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The keys, in order.
    public private(set) var keys: [String] = []
    /// The values, in the order of ``keys``.
    public private(set) var values: [EJSON] = []
    /// Key to position, kept while the document has more than `indexThreshold` fields.
    private var index: [String: Int]?

    /// Fields up to which a linear scan beats hashing.
    static let indexThreshold = 16

    /// An empty document.
    public init() {}

    /// A document of these fields, in this order; a repeated key keeps its last value.
    public init<S: Sequence>(_ fields: S) where S.Element == (String, EJSON) {
        for (key, value) in fields { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, EJSON)...) {
        self.init(elements)
    }

    /// The number of fields.
    public var count: Int { keys.count }

    /// True when the document has no field.
    public var isEmpty: Bool { keys.isEmpty }

    /// The position of `key`, or nil.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return keys.firstIndex(of: key)
    }

    /// The value of `key`; setting nil removes the field, setting a new key appends it.
    public subscript(key: String) -> EJSON? {
        get { position(of: key).map { values[$0] } }
        set {
            if let i = position(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                appendUnchecked(key, newValue)
            }
        }
    }

    /// Appends a field without checking for a repeated key (the caller has checked).
    mutating func appendUnchecked(_ key: String, _ value: EJSON) {
        keys.append(key)
        values.append(value)
        if index != nil {
            index![key] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Appends a field unless `key` is there already (one hash lookup on a large document);
    /// returns false, changing nothing, for a repeated key.
    mutating func appendIfAbsent(_ key: String, _ value: EJSON) -> Bool {
        if index != nil {
            if let existing = index!.updateValue(keys.count, forKey: key) {
                index![key] = existing
                return false
            }
            keys.append(key)
            values.append(value)
            return true
        }
        guard !keys.contains(key) else { return false }
        appendUnchecked(key, value)
        return true
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: keys.count)
        for (i, key) in keys.enumerated() { built[key] = i }
        index = built
    }

    public func makeIterator() -> Zip2Sequence<[String], [EJSON]>.Iterator {
        zip(keys, values).makeIterator()
    }

    // The index is derived from the keys: equality and hashing ignore it.
    public static func == (a: EJSONDocument, b: EJSONDocument) -> Bool {
        a.keys == b.keys && a.values == b.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}
