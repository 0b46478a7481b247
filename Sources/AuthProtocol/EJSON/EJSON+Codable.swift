// SPDX-License-Identifier: Apache-2.0
/// EJSON values inside Codable types (token claims such as `user_data`).
///
/// Numbers encode as plain JSON numbers; ObjectId, Date and the other BSON types encode as
/// their canonical wrapper documents, so they decode back to the same case.
extension EJSON: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let v = try? c.decode(Int64.self) {
            self = .int64(v)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([EJSON].self) {
            self = .array(a)
        } else {
            let dict = try c.decode([String: EJSON].self)
            let doc = EJSONDocument(dict.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            if let first = doc.keys.first, first.hasPrefix("$"), let special = try? EJSONWrappers.interpret(doc) {
                self = special
            } else {
                self = .document(doc)
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .int32(let v):
            var c = encoder.singleValueContainer()
            try c.encode(v)
        case .int64(let v):
            var c = encoder.singleValueContainer()
            try c.encode(v)
        case .double(let d) where d.isFinite:
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .document(let doc):
            var c = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in doc { try c.encode(value, forKey: AnyKey(key)) }
        default:
            // A wrapper type: write its canonical document, which decodes back to the same case.
            let text = encoded(.canonical)
            var parser = EJSONParser(bytes: text, maxDepth: 4)
            let doc = (try? parser.parseRawDocument()) ?? EJSONDocument()
            var c = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in doc { try c.encode(value, forKey: AnyKey(key)) }
        }
    }
}

/// A coding key for any string.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

extension EJSONDocument: Codable {
    public init(from decoder: any Decoder) throws {
        guard case .document(let d) = try EJSON(from: decoder) else {
            throw DecodingError.typeMismatch(
                EJSONDocument.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a document"))
        }
        self = d
    }

    public func encode(to encoder: any Encoder) throws {
        try EJSON.document(self).encode(to: encoder)
    }
}
