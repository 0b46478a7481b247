// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Users' API keys (docs/protocol/wire-protocol.md section 7): at most ``apiKeyLimit`` per
/// user, names unique per user, the secret shown once and stored as a digest.
struct APIKeyService {
    let store: any APIKeyStore
    let clock: ServerClock
    /// Whether a caller may make a key.
    let sessions: SessionService

    /// API keys per user.
    static let apiKeyLimit = 20

    /// A new key named `name` for the caller. For a user with a second factor, only from a
    /// recent login that used it (``SessionService/requireAPIKeyMaker(_:)``).
    func create(_ caller: SessionCaller, name: String) async throws -> (record: APIKeyRecord, key: String) {
        try await sessions.requireAPIKeyMaker(caller)
        return try await create(app: caller.app, user: caller.user, name: name)
    }

    /// Enables the caller's key `id`: as making one, since an enabled key logs in with no
    /// second factor.
    func enable(_ caller: SessionCaller, id: String) async throws {
        try await sessions.requireAPIKeyMaker(caller)
        try await setDisabled(false, id: id, user: caller.user)
    }

    /// A new key named `name` for `user`; returns its record and its secret.
    func create(app: AppRuntime, user: UserRecord, name: String) async throws -> (record: APIKeyRecord, key: String) {
        guard !name.isEmpty, name.utf8.count <= 256,
            name.utf8.allSatisfy({ $0 == 45 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
        else {
            throw ServiceError(.invalidParameter, "API key name must be 1 to 256 ASCII letters, digits, '_' and '-'")
        }
        guard app.config.providers.apiKey else {
            throw ServiceError(.authProviderNotFound, "authentication via 'api-key' is unsupported")
        }
        guard !user.isAnonymous else { throw ServiceError(.badRequest, "anonymous users cannot create API keys") }
        let key = Secrets.randomHex(bytes: 32)
        let record = APIKeyRecord(
            id: clock.newId(), appId: app.id, userId: user.id, name: name, digest: Secrets.digest(key), disabled: false,
            createdAt: clock.now)
        let inserted = try await storing(ServiceError(.apiKeyAlreadyExists, "API key with name already exists")) {
            try await self.store.insertAPIKey(record, limit: Self.apiKeyLimit)
        }
        guard inserted else {
            throw ServiceError(.invalidParameter, "a user may have at most \(Self.apiKeyLimit) API keys")
        }
        return (record, key)
    }

    /// The user's key `id`, or 404 `APIKeyNotFound`.
    func key(id: String, user: UserRecord) async throws -> APIKeyRecord {
        guard let key = try await store.apiKey(id: id, userId: user.id) else { throw Self.keyNotFound }
        return key
    }

    /// Deletes the user's key `id`, or 404 `APIKeyNotFound`.
    func delete(id: String, user: UserRecord) async throws {
        guard try await store.deleteAPIKey(id: id, userId: user.id) else { throw Self.keyNotFound }
    }

    /// Disables or enables the user's key `id`, or 404 `APIKeyNotFound`.
    func setDisabled(_ disabled: Bool, id: String, user: UserRecord) async throws {
        guard try await store.setAPIKeyDisabled(disabled, id: id, userId: user.id) else { throw Self.keyNotFound }
    }

    /// The user's keys.
    func list(user: UserRecord) async throws -> [APIKeyRecord] {
        try await store.apiKeys(userId: user.id)
    }

    static let keyNotFound = ServiceError(.apiKeyNotFound, "API key not found")

    /// A key as the API shows it, without its secret.
    static func describe(_ key: APIKeyRecord) -> EJSON {
        ["_id": .string(key.id), "name": .string(key.name), "disabled": .bool(key.disabled)]
    }
}
