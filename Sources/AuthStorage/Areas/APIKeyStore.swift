// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Users' API keys. One area of ``AuthStore``.
public protocol APIKeyStore: Sendable {
    /// Inserts a key unless the user has `limit` already (returns false) ; conflict on a repeated name.
    func insertAPIKey(_ key: APIKeyRecord, limit: Int) async throws -> Bool
    func apiKeys(userId: String) async throws -> [APIKeyRecord]
    func apiKey(id: String, userId: String) async throws -> APIKeyRecord?
    func apiKey(app: String, digest: [UInt8]) async throws -> APIKeyRecord?
    /// Deletes the key and ends the sessions opened with it. False when the user has no such key.
    func deleteAPIKey(id: String, userId: String) async throws -> Bool
    /// Disables (ending the sessions opened with it) or enables the key.
    func setAPIKeyDisabled(_ disabled: Bool, id: String, userId: String) async throws -> Bool
}
