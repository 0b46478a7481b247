// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

extension UserRecord {
    /// The profile body (`GET auth/profile`, and a login's answer):
    /// `{user_id, domain_id, type, identities, data}`.
    func profile(app: AppRuntime) -> EJSON {
        [
            "user_id": .string(id), "domain_id": .string(app.id), "type": .string(type),
            "identities": .array(
                identities.map {
                    [
                        "id": .string($0.externalId), "provider_type": .string($0.providerType),
                        "provider_id": .string($0.providerId), "provider_data": .document($0.data),
                    ]
                }),
            "data": .document(data),
        ]
    }
}
