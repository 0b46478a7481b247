// SPDX-License-Identifier: Apache-2.0
extension EJSON {
    /// Parses canonical or relaxed Extended JSON v2, or plain JSON.
    ///
    /// Plain JSON integers become `.int64`, other numbers `.double`. `{"$oid": ..}`,
    /// `{"$numberInt": ..}` and the other EJSON wrappers become their own cases.
    /// - Parameters:
    ///   - bytes: UTF-8 text; invalid UTF-8 is an error.
    ///   - maxDepth: how deeply arrays and documents may nest.
    public init<C: Collection>(parsing bytes: C, maxDepth: Int = 64) throws(EJSONError) where C.Element == UInt8 {
        var parser = EJSONParser(bytes: Array(bytes), maxDepth: maxDepth)
        self = try parser.parseDocumentText()
    }

    /// Parses a string; see ``init(parsing:maxDepth:)``.
    public init(parsing text: String, maxDepth: Int = 64) throws(EJSONError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }
}

/// A recursive-descent JSON reader with EJSON interpretation of `$`-keyed documents.
struct EJSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var i = 0
    /// When true, `$`-keyed documents stay documents.
    var raw = false

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocumentText() throws(EJSONError) -> EJSON {
        skipSpace()
        let value = try parseValue(depth: 0)
        skipSpace()
        guard i == bytes.count else { throw EJSONError("unexpected text after the value", at: i) }
        return value
    }

    /// Parses one object without reading wrappers, so `{"$oid": ..}` stays a document of strings.
    mutating func parseRawDocument() throws(EJSONError) -> EJSONDocument {
        raw = true
        skipSpace()
        guard case .document(let d) = try parseValue(depth: 0) else { throw EJSONError("expected a document", at: 0) }
        return d
    }

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private func describeHere() -> String {
        i < bytes.count ? "'\(Unicode.Scalar(bytes[i]))'" : "end of input"
    }

    private mutating func parseValue(depth: Int) throws(EJSONError) -> EJSON {
        guard i < bytes.count else { throw EJSONError("expected a value, got end of input", at: i) }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw EJSONError("expected a value, got \(describeHere())", at: i)
        }
    }

    private mutating func literal(_ word: String) throws(EJSONError) {
        let w = Array(word.utf8)
        let start = i
        guard i + w.count <= bytes.count, bytes[i..<(i + w.count)].elementsEqual(w) else {
            throw EJSONError("invalid literal", at: start)
        }
        i += w.count
    }

    private mutating func parseNumber() throws(EJSONError) -> EJSON {
        let start = i
        var isInteger = true
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw EJSONError("invalid number", at: start) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, isDigit(bytes[i]) { throw EJSONError("invalid number (leading zero)", at: start) }
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw EJSONError("invalid number", at: start) }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw EJSONError("invalid number", at: start) }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if isInteger, let v = Int64(text) { return .int64(v) }
        guard let d = Double(text) else { throw EJSONError("invalid number", at: start) }
        return .double(d)
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private mutating func parseString() throws(EJSONError) -> String {
        let start = i
        i += 1  // opening quote
        var out = [UInt8]()
        var runStart = i
        while true {
            guard i < bytes.count else { throw EJSONError("unterminated string", at: start) }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw EJSONError("control character in string", at: i) }
            if c != UInt8(ascii: "\\") { i += 1; continue }
            out += bytes[runStart..<i]
            i += 1
            guard i < bytes.count else { throw EJSONError("unterminated string", at: start) }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw EJSONError("unpaired surrogate in \\u escape", at: i)
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw EJSONError("unpaired surrogate in \\u escape", at: i) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw EJSONError("unpaired surrogate in \\u escape", at: i)
                }
                out += Array(String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: throw EJSONError("invalid escape '\\\(Unicode.Scalar(e))'", at: i - 1)
            }
            runStart = i
        }
        let raw: ArraySlice<UInt8>
        if out.isEmpty && runStart == start + 1 {
            raw = bytes[runStart..<i]
        } else {
            out += bytes[runStart..<i]
            raw = out[...]
        }
        i += 1  // closing quote
        guard let s = Self.string(raw) else { throw EJSONError("invalid UTF-8 in string", at: start) }
        return s
    }

    /// The string of UTF-8 `bytes`, or nil if they are not valid UTF-8. ASCII (most keys and
    /// values) needs no validation, and the check for it is cheaper than the general one.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            var ascii: UInt8 = 0
            for byte in buffer { ascii |= byte }
            return ascii < 0x80 ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
    }

    private mutating func hex4() throws(EJSONError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw EJSONError("short \\u escape", at: i) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = Hex.value(bytes[i]) else { throw EJSONError("invalid \\u escape", at: i) }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    private mutating func parseArray(depth: Int) throws(EJSONError) -> EJSON {
        guard depth <= maxDepth else { throw EJSONError("nested more than \(maxDepth) levels", at: i) }
        i += 1
        var items: [EJSON] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try parseValue(depth: depth))
            skipSpace()
            guard i < bytes.count else { throw EJSONError("unterminated array", at: i) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw EJSONError("expected ',' or ']' in array, got \(describeHere())", at: i)
        }
    }

    private mutating func parseObject(depth: Int) throws(EJSONError) -> EJSON {
        guard depth <= maxDepth else { throw EJSONError("nested more than \(maxDepth) levels", at: i) }
        let start = i
        i += 1
        var doc = EJSONDocument()
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .document(doc) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                throw EJSONError("expected a string key, got \(describeHere())", at: i)
            }
            let keyAt = i
            let key = try parseString()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw EJSONError("expected ':' after object key", at: i)
            }
            i += 1
            skipSpace()
            let value = try parseValue(depth: depth)
            guard doc.appendIfAbsent(key, value) else { throw EJSONError("duplicate key \"\(key)\"", at: keyAt) }
            skipSpace()
            guard i < bytes.count else { throw EJSONError("unterminated object", at: i) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw EJSONError("expected ',' or '}' in object, got \(describeHere())", at: i)
        }
        if !raw, let first = doc.keys.first, first.utf8.first == UInt8(ascii: "$") {
            do {
                if let special = try EJSONWrappers.interpret(doc) { return special }
            } catch {
                throw EJSONError(error.reason, at: start)
            }
        }
        return .document(doc)
    }
}
