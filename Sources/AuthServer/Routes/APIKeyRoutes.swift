import AuthProtocol
import Hummingbird

/// User API keys, with the refresh token (docs/protocol/wire-protocol.md sections 2 and 7).
extension AuthService {
    func addAPIKeyRoutes(to keys: RouterGroup<AuthRequestContext>) {
        keys.post { request, context in
            let (app, _, user) = try await self.sessionOfRefreshToken(try request.bearerToken(), identities: true)
            let body = try await RequestBody.read(request, context: context)
            let name = try body.string("name")
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
                id: self.newId(), appId: app.id,
                userId: user.id, name: name, digest: Secrets.digest(key), disabled: false,
                createdAt: self.clock.now)
            let inserted = try await self.storing(ServiceError(.apiKeyAlreadyExists, "API key with name already exists")) {
                try await self.store.insertAPIKey(record, limit: Self.apiKeyLimit)
            }
            guard inserted else {
                throw ServiceError(.invalidParameter, "a user may have at most \(Self.apiKeyLimit) API keys")
            }
            return JSONResponse.make(
                [
                    "_id": .string(record.id), "key": .string(key), "name": .string(name),
                    "disabled": false,
                ], status: .created)
        }
        keys.get { request, _ in
            let (_, _, user) = try await self.sessionOfRefreshToken(try request.bearerToken())
            let list = try await self.store.apiKeys(userId: user.id)
            return JSONResponse.make(.array(list.map(Self.describe)))
        }
        keys.get(":id") { request, context in
            let (_, _, user) = try await self.sessionOfRefreshToken(try request.bearerToken())
            guard let key = try await self.store.apiKey(id: context.parameters.get("id") ?? "", userId: user.id) else {
                throw Self.keyNotFound
            }
            return JSONResponse.make(Self.describe(key))
        }
        keys.delete(":id") { request, context in
            let (_, _, user) = try await self.sessionOfRefreshToken(try request.bearerToken())
            guard try await self.store.deleteAPIKey(id: context.parameters.get("id") ?? "", userId: user.id) else {
                throw Self.keyNotFound
            }
            return JSONResponse.empty
        }
        for (action, disabled) in [("enable", false), ("disable", true)] {
            keys.put(":id/\(action)") { request, context in
                let (_, _, user) = try await self.sessionOfRefreshToken(try request.bearerToken())
                guard try await self.store.setAPIKeyDisabled(disabled, id: context.parameters.get("id") ?? "", userId: user.id)
                else { throw Self.keyNotFound }
                return JSONResponse.empty
            }
        }
    }

    static let keyNotFound = ServiceError(.apiKeyNotFound, "API key not found")

    static func describe(_ key: APIKeyRecord) -> EJSON {
        ["_id": .string(key.id), "name": .string(key.name), "disabled": .bool(key.disabled)]
    }
}
