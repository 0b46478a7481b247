// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Export and import of users.
extension SQLStore {
    public func exportUsers(app: String, after cursor: String?, limit: Int) async throws -> [PortableUser] {
        try await engine.snapshot("export users") { r in
            let from = cursor ?? ""
            let end =
                try await r.first(TransferStatements.pageEnd, [.text(app), .text(from), .integer(limit - 1)]) {
                    try $0.text("id")
                } ?? TransferStatements.idsEnd
            var users: [PortableUser] = []
            try await r.each(TransferStatements.page, [.text(app), .text(from), .text(end)]) { row in
                let id = try row.text("id")
                if users.last?.user.id != id {
                    let user = try UsersTable.user(row, id: id, app: try row.text("app_id"), createdAt: "created_at")
                    users.append(PortableUser(user: user, lastLoginAt: try row.optionalInt64("last_login_at")))
                }
                guard try row.optionalText("external_id") != nil else { return }
                let identity = try IdentitiesTable.identity(row)
                users[users.count - 1].user.identities.append(identity)
                if let email = try row.optionalText("account_email") {
                    users[users.count - 1].accounts.append(
                        UserpassAccount(
                            appId: app, email: email, passwordHash: try row.text("password_hash"), identityId: identity.externalId,
                            confirmed: try row.bool("confirmed"), createdAt: try row.int64("account_created_at"),
                            emailVerified: try row.bool("email_verified")))
                }
            }
            // Their second factors and passkeys, a statement each for the whole page.
            let index = Dictionary(uniqueKeysWithValues: users.enumerated().map { ($1.user.id, $0) })
            let range: [SQLValue] = [.text(app), .text(from), .text(end)]
            try await r.each(TransferStatements.totpPage, range) { row in
                let factor = try TOTPFactorsTable.factor(row)
                if let i = index[factor.userId] { users[i].totp = factor }
            }
            try await r.each(TransferStatements.phonesPage, range) { row in
                let userId = try row.text("user_id")
                if let i = index[userId] { users[i].phones.append(try PhoneFactorsTable.factor(row, userId: userId)) }
            }
            try await r.each(TransferStatements.recoveryCodesPage, range) { row in
                if let i = index[try row.text("user_id")] { users[i].recoveryCodes.append(try row.bytes("digest")) }
            }
            try await r.each(PasskeysTable.ofUsers, range) { row in
                let passkey = try PasskeysTable.passkey(row)
                if let i = index[passkey.userId] { users[i].passkeys.append(passkey) }
            }
            return users
        }
    }

    public func countUsers(app: String) async throws -> Int {
        try await engine.read("count users") { r in Int(try await r.first(TransferStatements.countUsers, [.text(app)]) { try $0.int64("n") } ?? 0) }
    }

    public func exportLooseAccounts(app: String, after cursor: String?, limit: Int) async throws -> [UserpassAccount] {
        try await engine.read("export accounts") { r in
            try await r.all(
                TransferStatements.looseAccounts, [.text(app), .text(cursor ?? ""), .integer(limit)],
                UserpassAccountsTable.account)
        }
    }

    public func importUsers(_ users: [PortableUser], looseAccounts: [UserpassAccount]) async throws -> ImportCounts {
        try await engine.write("import users") { r in
            var counts = ImportCounts()
            for p in users {
                let u = p.user
                if try await r.first(TransferStatements.userExists, [.text(u.id)], { try $0.int64("found") }) != nil {
                    counts.skipped += 1
                    continue
                }
                try await r.run(
                    TransferStatements.insertUser,
                    [
                        .text(u.id), .text(u.appId), .text(u.type), u.data.sqlValue,
                        u.customData.sqlValue, .bool(u.disabled), .integer(u.createdAt),
                        .integer(p.lastLoginAt),
                    ])
                try await Self.insertIdentities(of: u, on: r)
                for account in p.accounts { try await r.run(UserpassAccountsTable.insert, UserpassAccountsTable.insertArguments(account)) }
                if let t = p.totp {
                    try await r.run(
                        TransferStatements.insertTOTP,
                        [.text(u.id), .text(t.appId), .blob(t.secret), .integer(t.confirmedAt), .integer(t.lastStep), .integer(t.createdAt)])
                }
                for phone in p.phones { try await r.run(PhoneFactorsTable.insert, PhoneFactorsTable.arguments(phone)) }
                for digest in p.recoveryCodes { try await r.run(RecoveryCodesTable.insert, [.text(u.id), .blob(digest)]) }
                for passkey in p.passkeys { try await r.run(PasskeysTable.insert, PasskeysTable.insertArguments(passkey)) }
                counts.imported += 1
            }
            for account in looseAccounts {
                if try await r.first(TransferStatements.accountExists, [.text(account.appId), .text(account.email)], { try $0.int64("found") }) != nil
                {
                    counts.skipped += 1
                    continue
                }
                try await r.run(UserpassAccountsTable.insert, UserpassAccountsTable.insertArguments(account))
                counts.imported += 1
            }
            return counts
        }
    }
}
