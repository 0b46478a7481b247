// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Email/password accounts, one-time tokens and pending credentials.
extension SQLStore {
    // MARK: email/password

    public func userpassAccount(app: String, email: String) async throws -> UserpassAccount? {
        try await engine.read("read account") { r in
            try await r.first(UserpassAccountsTable.select, [.text(app), .text(email)], UserpassAccountsTable.account)
        }
    }

    public func userpassAccount(app: String, identityId: String) async throws -> UserpassAccount? {
        try await engine.read("read account") { r in
            try await r.first(UserpassAccountsTable.selectOfIdentity, [.text(app), .text(identityId)], UserpassAccountsTable.account)
        }
    }

    public func insertUserpassAccount(_ account: UserpassAccount) async throws {
        try await engine.write("register") { r in
            try await r.run(UserpassAccountsTable.insert, UserpassAccountsTable.insertArguments(account))
        }
    }

    public func deleteUserpassAccount(app: String, email: String) async throws {
        try await engine.write("delete account") { r in try await r.run(UserpassAccountsTable.delete, [.text(app), .text(email)]) }
    }

    public func confirmUserpassAccount(app: String, email: String) async throws {
        try await engine.write("confirm account") { r in try await r.run(UserpassAccountsTable.confirm, [.text(app), .text(email)]) }
    }

    public func setEmailVerified(_ verified: Bool, app: String, email: String) async throws {
        try await engine.write("set email verified") { r in
            try await r.run(UserpassAccountsTable.setEmailVerified, [.bool(verified), .text(app), .text(email)])
        }
    }

    public func setPassword(app: String, email: String, hash: String) async throws {
        try await engine.write("set password") { r in
            try await r.run(UserpassAccountsTable.setPassword, [.text(hash), .text(app), .text(email)])
        }
    }

    public func resetPassword(app: String, email: String, hash: String) async throws {
        try await setPassword(app: app, email: email, hash: hash, endingSessionsBut: nil, operation: "reset password")
    }

    public func changePassword(app: String, email: String, hash: String, keepSession: String) async throws {
        try await setPassword(app: app, email: email, hash: hash, endingSessionsBut: keepSession, operation: "change password")
    }

    /// A new password, and every session of the account's user ended but `keep`, in one transaction.
    private func setPassword(app: String, email: String, hash: String, endingSessionsBut keep: String?, operation: String) async throws {
        try await engine.write(operation) { r in
            try await r.run(UserpassAccountsTable.setPassword, [.text(hash), .text(app), .text(email)])
            if keep == nil { try await r.run(UserpassAccountsTable.proveEmail, [.text(app), .text(email)]) }
            // Session ids are never empty: "" keeps none.
            try await r.run(
                SessionsTable.deleteOfAccount,
                [
                    .text(app), .text(keep ?? ""), .text(ProviderType.userpass),
                    .text(app), .text(email),
                ])
        }
    }

    // MARK: one-time tokens

    public func insertToken(_ t: OneTimeToken, now: Int64, keep: Int, mail: QueuedMail?) async throws {
        try await engine.write("store token") { r in
            // Earlier tokens stay valid until they expire or one of them is used; only the
            // expired ones, and the oldest past `keep`, go.
            try await r.run(
                OneTimeTokensTable.prune,
                [
                    .text(t.appId), .text(t.kind.rawValue), .text(t.email), .integer(now),
                    .text(t.appId), .text(t.kind.rawValue), .text(t.email), .integer(max(0, keep - 1)),
                ])
            try await r.run(
                OneTimeTokensTable.insert,
                [
                    .text(t.id), .text(t.appId), .text(t.kind.rawValue), .text(t.email),
                    .blob(t.digest), .integer(t.expiresAt), .text(t.newEmail),
                ])
            if let mail { try await r.run(MailQueueTable.insert, MailQueueTable.insertArguments(mail)) }
        }
    }

    public func discardToken(app: String, id: String) async throws {
        try await engine.write("discard token") { r in try await r.run(OneTimeTokensTable.discard, [.text(id), .text(app)]) }
    }

    public func tokenEmail(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String? {
        try await peekToken(app: app, kind: kind, id: id, digest: digest, now: now)?.email
    }

    public func peekToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws
        -> (email: String, newEmail: String?)?
    {
        let token = try await engine.read("check token") { r in
            try await r.first(OneTimeTokensTable.peek, [.text(id), .text(app), .text(kind.rawValue)], Self.tokenColumns)
        }
        guard let token, Secrets.constantTimeEqual(token.digest, digest), token.expires > now else { return nil }
        return (token.email, token.newEmail)
    }

    public func consumeToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws -> String? {
        try await useToken(app: app, kind: kind, id: id, digest: digest, now: now)?.email
    }

    public func useToken(app: String, kind: OneTimeToken.Kind, id: String, digest: [UInt8], now: Int64) async throws
        -> (email: String, newEmail: String?)?
    {
        try await engine.write("use token") { r in
            guard let token = try await r.first(OneTimeTokensTable.select, [.text(id), .text(app), .text(kind.rawValue)], Self.tokenColumns)
            else { return nil }
            guard Secrets.constantTimeEqual(token.digest, digest) else { return nil }
            guard token.expires > now else {
                try await r.run(OneTimeTokensTable.deleteOne, [.text(id)])
                return nil
            }
            // Used: it and every other token of its kind for that email are spent.
            try await r.run(OneTimeTokensTable.deleteOfEmail, [.text(app), .text(kind.rawValue), .text(token.email)])
            return (token.email, token.newEmail)
        }
    }

    /// The columns of ``OneTimeTokensTable/select`` and ``OneTimeTokensTable/peek``.
    private static func tokenColumns<Row: SQLRow>(_ row: Row) throws -> (email: String, newEmail: String?, digest: [UInt8], expires: Int64) {
        (try row.text("email"), try row.optionalText("new_email"), try row.bytes("digest"), try row.int64("expires_at"))
    }

    // MARK: pending credentials

    public func insertPendingCredential(_ credential: PendingCredential) async throws {
        try await engine.write("store pending credential") { r in
            try await r.run(PendingCredentialsTable.insert, PendingCredentialsTable.insertArguments(credential))
        }
    }

    public func pendingCredential(app: String, id: String) async throws -> PendingCredential? {
        try await engine.read("read pending credential") { r in
            try await r.first(PendingCredentialsTable.select, [.text(id), .text(app)], PendingCredentialsTable.credential)
        }
    }

    public func deletePendingCredential(app: String, id: String) async throws -> Bool {
        try await engine.write("use pending credential") { r in
            try await r.count(PendingCredentialsTable.delete, [.text(id), .text(app)]) > 0
        }
    }
}
