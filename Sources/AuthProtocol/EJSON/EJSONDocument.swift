/// An EJSON document: string keys in insertion order, each at most once.
public struct EJSONDocument: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The keys, in order.
    public private(set) var keys: [String] = []
    /// The values, in the order of ``keys``.
    public private(set) var values: [EJSON] = []

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

    /// The value of `key`; setting nil removes the field, setting a new key appends it.
    public subscript(key: String) -> EJSON? {
        get {
            guard let i = keys.firstIndex(of: key) else { return nil }
            return values[i]
        }
        set {
            if let i = keys.firstIndex(of: key) {
                if let newValue { values[i] = newValue } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends a field without checking for a repeated key (the parser checks).
    mutating func appendUnchecked(_ key: String, _ value: EJSON) {
        keys.append(key)
        values.append(value)
    }

    public func makeIterator() -> Zip2Sequence<[String], [EJSON]>.Iterator {
        zip(keys, values).makeIterator()
    }
}
