// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// A user API key. `key` is the secret, present only in the answer to `create`.
public struct UserAPIKey: Sendable, Equatable {
    public var id: String
    public var name: String
    public var disabled: Bool
    public var key: String?
}

/// The API keys of a user (they use the refresh token, as App Services' routes do).
public struct UserAPIKeys: Sendable {
    let user: User

    private func request(_ method: String, _ path: String, body: EJSON? = nil) async throws(AuthClientError) -> EJSON {
        try await user.app.request(method, path, body: body, auth: .refresh(userId: user.id))
    }

    private func key(_ value: EJSON) throws(AuthClientError) -> UserAPIKey {
        guard let id = value["_id"]?.stringValue, let name = value["name"]?.stringValue, let disabled = value["disabled"]?.boolValue else {
            throw user.app.malformed("an API key answer lacks _id, name or disabled")
        }
        return UserAPIKey(id: id, name: name, disabled: disabled, key: value["key"]?.stringValue)
    }

    /// A new key; its secret is in the result's `key`, and nowhere else ever again.
    public func create(name: String) async throws(AuthClientError) -> UserAPIKey {
        try key(try await request("POST", Routes.apiKeys, body: ["name": .string(name)]))
    }

    /// Every key, in creation order (without secrets).
    public func list() async throws(AuthClientError) -> [UserAPIKey] {
        guard case .array(let items) = try await request("GET", Routes.apiKeys) else {
            throw user.app.malformed("the API key list is not an array")
        }
        var keys: [UserAPIKey] = []
        for item in items { keys.append(try key(item)) }
        return keys
    }

    public func fetch(id: String) async throws(AuthClientError) -> UserAPIKey {
        try key(try await request("GET", Routes.apiKey(id)))
    }

    public func delete(id: String) async throws(AuthClientError) {
        _ = try await request("DELETE", Routes.apiKey(id))
    }

    public func enable(id: String) async throws(AuthClientError) {
        _ = try await request("PUT", Routes.apiKey(id) + "/enable")
    }

    public func disable(id: String) async throws(AuthClientError) {
        _ = try await request("PUT", Routes.apiKey(id) + "/disable")
    }
}

extension User {
    /// This user's API keys.
    public var apiKeys: UserAPIKeys { UserAPIKeys(user: self) }
}
