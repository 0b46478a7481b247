// SPDX-License-Identifier: Apache-2.0
/// The `$`-keyed wrapper documents of Extended JSON v2, read into their EJSON cases.
enum EJSONWrappers {
    struct Malformed: Error { let reason: String }

    /// The value a wrapper document stands for; nil when the document is not a wrapper
    /// (an ordinary document whose first key happens to start with `$`).
    static func interpret(_ doc: EJSONDocument) throws(Malformed) -> EJSON? {
        let key = doc.keys[0]
        let value = doc.values[0]
        func single() throws(Malformed) {
            guard doc.count == 1 else { throw Malformed(reason: "\(key) must be the only key of its document") }
        }
        func text() throws(Malformed) -> String {
            guard case .string(let s) = value else { throw Malformed(reason: "\(key) must be a string") }
            return s
        }
        switch key {
        case "$oid":
            try single()
            guard let id = ObjectId(hex: try text()) else { throw Malformed(reason: "$oid must be 24 hex digits") }
            return .objectId(id)
        case "$numberInt":
            try single()
            guard let v = Int32(try text()) else { throw Malformed(reason: "$numberInt is not a 32-bit integer") }
            return .int32(v)
        case "$numberLong":
            try single()
            guard let v = Int64(try text()) else { throw Malformed(reason: "$numberLong is not a 64-bit integer") }
            return .int64(v)
        case "$numberDouble":
            try single()
            let s = try text()
            switch s {
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default:
                guard let d = Double(s), d.isFinite else { throw Malformed(reason: "$numberDouble is not a number") }
                return .double(d)
            }
        case "$numberDecimal":
            try single()
            return .decimal128(try text())
        case "$date":
            try single()
            switch value {
            case .int64(let ms): return .date(ms)
            case .int32(let ms): return .date(Int64(ms))
            case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return .date(Int64(d))
            case .string(let iso):
                guard let ms = ISODate.parse(iso) else { throw Malformed(reason: "$date is not an ISO-8601 date") }
                return .date(ms)
            default: throw Malformed(reason: "$date must be {\"$numberLong\": ...} or an ISO-8601 string")
            }
        case "$binary":
            if case .string(let b64) = value {  // legacy {"$binary": "..", "$type": "00"}
                guard doc.count == 2, case .string(let t)? = doc["$type"], let sub = UInt8(t, radix: 16),
                    let bytes = Base64.decode(b64)
                else { throw Malformed(reason: "$binary must be {\"base64\": .., \"subType\": ..}") }
                return .binary(subtype: sub, bytes: bytes)
            }
            try single()
            guard case .document(let inner) = value, inner.count == 2,
                case .string(let b64)? = inner["base64"], case .string(let t)? = inner["subType"]
            else { throw Malformed(reason: "$binary must be {\"base64\": .., \"subType\": ..}") }
            guard let sub = UInt8(t, radix: 16), t.utf8.count <= 2 else { throw Malformed(reason: "$binary subType must be 1 or 2 hex digits") }
            guard let bytes = Base64.decode(b64) else { throw Malformed(reason: "$binary base64 is not valid base64") }
            return .binary(subtype: sub, bytes: bytes)
        case "$uuid":
            try single()
            let hex = try text().filter { $0 != "-" }
            guard hex.utf8.count == 32, let bytes = Hex.decode(hex) else { throw Malformed(reason: "$uuid is not a UUID") }
            return .binary(subtype: 4, bytes: bytes)
        case "$timestamp":
            try single()
            guard case .document(let inner) = value, inner.count == 2,
                let t = inner["t"]?.integerValue, let inc = inner["i"]?.integerValue,
                let t32 = UInt32(exactly: t), let i32 = UInt32(exactly: inc)
            else { throw Malformed(reason: "$timestamp must be {\"t\": .., \"i\": ..}") }
            return .timestamp(seconds: t32, increment: i32)
        case "$regularExpression":
            try single()
            guard case .document(let inner) = value, inner.count == 2,
                case .string(let pattern)? = inner["pattern"], case .string(let options)? = inner["options"]
            else { throw Malformed(reason: "$regularExpression must be {\"pattern\": .., \"options\": ..}") }
            return .regularExpression(pattern: pattern, options: options)
        case "$minKey":
            try single()
            guard value.integerValue == 1 else { throw Malformed(reason: "$minKey must be 1") }
            return .minKey
        case "$maxKey":
            try single()
            guard value.integerValue == 1 else { throw Malformed(reason: "$maxKey must be 1") }
            return .maxKey
        default:
            return nil
        }
    }
}
