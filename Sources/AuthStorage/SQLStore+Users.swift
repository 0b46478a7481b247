// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Users and identities.
extension SQLStore {
    public func insertUser(_ user: UserRecord, events: [TriggerRun]) async throws {
        try await engine.write("create user") { r in try await Self.insertUser(user, events: events, on: r) }
    }

    /// The statements of ``insertUser(_:events:)``, in the caller's transaction.
    package static func insertUser(_ user: UserRecord, events: [TriggerRun], on r: Engine.Runner) async throws {
        for event in events { try await r.run(TriggerRunsTable.insert, TriggerRunsTable.insertArguments(event)) }
        try await r.run(UsersTable.insert, UsersTable.insertArguments(user))
        try await insertIdentities(of: user, on: r)
    }

    /// Inserts `user`'s identities, in its order, in the caller's transaction.
    package static func insertIdentities(of user: UserRecord, on r: Engine.Runner) async throws {
        for (position, identity) in user.identities.enumerated() {
            try await r.run(IdentitiesTable.insert, IdentitiesTable.insertArguments(identity, userId: user.id, app: user.appId, position: position))
        }
    }

    public func user(id: String, app: String) async throws -> UserRecord? {
        try await engine.read("read user") { r in
            UsersTable.userWithIdentities(try await r.all(UsersTable.withIdentities, [.text(id), .text(app)], UsersTable.userAndIdentity))
        }
    }

    public func user(app: String, providerType: String, externalId: String) async throws -> UserRecord? {
        try await engine.read("read user") { r in
            UsersTable.userWithIdentities(
                try await r.all(
                    UsersTable.withIdentitiesByIdentity,
                    [.text(app), .text(providerType), .text(externalId)],
                    UsersTable.userAndIdentity))
        }
    }

    public func userId(app: String, providerType: String, externalId: String) async throws -> String? {
        try await engine.read("find identity") { r in
            try await r.first(IdentitiesTable.owner, [.text(app), .text(providerType), .text(externalId)]) { try $0.text("user_id") }
        }
    }

    public func addIdentity(_ identity: IdentityRecord, toUser userId: String, app: String, profile: EJSONDocument) async throws {
        try await engine.write("link identity") { r in
            let position = try await r.first(IdentitiesTable.nextPosition, [.text(userId)]) { try $0.int64("next") } ?? 0
            try await r.run(
                IdentitiesTable.insert,
                IdentitiesTable.insertArguments(
                    identity, userId: userId, app: app,
                    position: Int(position)))
            try await r.run(UsersTable.setData, [profile.sqlValue, .text(userId)])
        }
    }

    public func removeIdentity(app: String, userId: String, providerType: String, externalId: String) async throws -> IdentityRemoval {
        try await engine.write("unlink identity") { r in
            // The user's row locked, so two unlinks at once cannot remove its last two identities.
            try await r.run(UsersTable.lock, [.text(userId)])
            let counts = try await r.first(IdentitiesTable.counts, [.text(providerType), .text(externalId), .text(userId), .text(app)]) {
                (total: try $0.int64("total"), held: try $0.int64("held"))
            }
            guard counts?.held == 1 else { return .notFound }
            guard let counts, counts.total > 1 else { return .lastIdentity }
            if providerType == ProviderType.userpass {
                try await r.run(UserpassAccountsTable.deleteOfIdentity, [.text(app), .text(externalId)])
            }
            try await r.run(IdentitiesTable.delete, [.text(app), .text(providerType), .text(externalId)])
            return .removed
        }
    }

    public func setIdentityEmail(_ email: String?, app: String, providerType: String, externalId: String) async throws {
        try await engine.write("update identity email") { r in
            try await r.run(IdentitiesTable.setEmail, [.text(email), .text(app), .text(providerType), .text(externalId)])
        }
    }

    public func setCustomData(_ data: EJSONDocument?, userId: String, app: String) async throws -> Bool {
        try await engine.write("set custom data") { r in
            try await r.count(UsersTable.setCustomData, [data.sqlValue, .text(userId), .text(app)]) > 0
        }
    }

    public func setUserData(_ data: EJSONDocument, userId: String, app: String) async throws -> Bool {
        try await engine.write("set profile") { r in
            try await r.count(UsersTable.setDataOfApp, [data.sqlValue, .text(userId), .text(app)]) > 0
        }
    }

    public func deleteUser(id: String, app: String, events: [TriggerRun]) async throws {
        try await engine.write("delete user") { r in
            try await r.run(UserpassAccountsTable.deleteOfUser, [.text(app), .text(id), .text(ProviderType.userpass)])
            guard try await r.count(UsersTable.delete, [.text(id), .text(app)]) > 0 else { return }
            for event in events { try await r.run(TriggerRunsTable.insert, TriggerRunsTable.insertArguments(event)) }
        }
    }

    public func emailHolder(app: String, email: String, accounts: Bool) async throws -> EmailHolder? {
        try await engine.snapshot("find email") { r in
            if let userId = try await r.first(IdentitiesTable.emailOwner, [.text(app), .text(email)], { try $0.text("user_id") }) {
                var providers: [String] = []
                for type in try await r.all(IdentitiesTable.providerTypes, [.text(userId)], { try $0.text("provider_type") })
                where type != ProviderType.anonymous && !providers.contains(type) {
                    providers.append(type)
                }
                return EmailHolder(userId: userId, providers: providers)
            }
            guard accounts else { return nil }
            let waiting =
                try await r.first(
                    UserpassAccountsTable.waitingWithEmail,
                    [.text(app), .text(email), .text(ProviderType.userpass)]
                ) { _ in true } ?? false
            return waiting ? EmailHolder(userId: nil, providers: [ProviderType.userpass]) : nil
        }
    }
}
