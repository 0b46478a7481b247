// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Hummingbird

extension UserQuery {
    /// The parameters a listing takes: `id`, `email` (a prefix), `provider`, `state` (`enabled`,
    /// `disabled`), `createdAfter`, `createdBefore`, `lastLoginAfter`, `lastLoginBefore`
    /// (unix seconds), `limit` (1 to 1000, default 50) and `cursor` (the `next` of the page
    /// before). Any other parameter, or a value out of shape, is a 400 naming it.
    init(parameters: [(key: String, value: String)]) throws(ServiceError) {
        self.init()
        var seen: Set<String> = []
        for (key, value) in parameters {
            guard seen.insert(key).inserted else { throw ServiceError(.invalidParameter, "parameter '\(key)' is given twice") }
            func seconds() throws(ServiceError) -> Int64 {
                guard let n = Int64(value), n >= 0 else {
                    throw ServiceError(.invalidParameter, "parameter '\(key)' must be a time in unix seconds")
                }
                return n
            }
            switch key {
            case "email":
                guard !value.isEmpty, value.utf8.count <= 254 else {
                    throw ServiceError(.invalidParameter, "parameter 'email' must be 1 to 254 bytes")
                }
                emailPrefix = value.lowercased()
            case "id":
                guard value.utf8.count <= 64 else { throw ServiceError(.invalidParameter, "parameter 'id' must be a user id") }
                id = value
            case "provider":
                guard !value.isEmpty, value.utf8.count <= 64 else {
                    throw ServiceError(.invalidParameter, "parameter 'provider' must be 1 to 64 bytes")
                }
                provider = value
            case "state":
                guard value == "enabled" || value == "disabled" else {
                    throw ServiceError(.invalidParameter, "parameter 'state' must be enabled or disabled")
                }
                disabled = value == "disabled"
            case "createdAfter": createdAfter = try seconds()
            case "createdBefore": createdBefore = try seconds()
            case "lastLoginAfter": lastLoginAfter = try seconds()
            case "lastLoginBefore": lastLoginBefore = try seconds()
            case "limit":
                guard let n = Int(value), (1...1000).contains(n) else {
                    throw ServiceError(.invalidParameter, "parameter 'limit' must be 1 to 1000")
                }
                limit = n
            case "cursor":
                guard value.utf8.count == 24, value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                    throw ServiceError(.invalidParameter, "parameter 'cursor' must be the 'next' of a page")
                }
                after = value
            default:
                throw ServiceError(
                    .invalidParameter,
                    "unknown parameter '\(key)' (id, email, provider, state, createdAfter, createdBefore, lastLoginAfter, lastLoginBefore, limit, cursor)"
                )
            }
        }
    }
}
