// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The named fields a client sent (a JSON body's object, whichever API it came through),
/// with readers whose errors name the field. Services take them where the fields depend on
/// what is asked: a provider's credentials, a second factor's answer.
struct InputFields: Sendable {
    let document: EJSONDocument

    /// A required string field.
    func string(_ key: String) throws(ServiceError) -> String {
        guard let v = document[key], v != .null else { throw ServiceError(.missingParameter, "missing parameter '\(key)'") }
        guard case .string(let s) = v else {
            throw ServiceError(.invalidParameter, "parameter '\(key)' must be a string, got \(v.typeName)")
        }
        return s
    }

    /// An optional string field.
    func optionalString(_ key: String) throws(ServiceError) -> String? {
        guard let v = document[key], v != .null else { return nil }
        guard case .string(let s) = v else {
            throw ServiceError(.invalidParameter, "parameter '\(key)' must be a string, got \(v.typeName)")
        }
        return s
    }

    /// An optional array field (absent: empty) of at most `limit` values.
    func array(_ key: String, atMost limit: Int) throws(ServiceError) -> [EJSON] {
        switch document[key] {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= limit else {
                throw ServiceError(.invalidParameter, "parameter '\(key)' has \(items.count) values: at most \(limit) are allowed")
            }
            return items
        case let other?:
            throw ServiceError(.invalidParameter, "parameter '\(key)' must be an array, got \(other.typeName)")
        }
    }
}
