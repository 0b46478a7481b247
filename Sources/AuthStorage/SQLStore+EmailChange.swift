// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// An email/password account moved to another email (Firebase's email change).
extension SQLStore {
    public func changeEmail(app: String, from: String, to: String, verified: Bool, vouched: String?, keepSession: String?) async throws
        -> EmailChange
    {
        try await engine.write("change email") { r in
            guard let account = try await r.first(UserpassAccountsTable.select, [.text(app), .text(from)], UserpassAccountsTable.account)
            else { return .notFound }
            let taken = try await r.first(
                UserpassAccountsTable.holderOfEmail, [.text(app), .text(to.lowercased()), .text(account.identityId)]
            ) { _ in true }
            if taken != nil { return .taken }
            let identity = try await r.first(
                IdentitiesTable.select, [.text(app), .text(ProviderType.userpass), .text(account.identityId)]
            ) { (userId: try $0.text("user_id"), record: try IdentitiesTable.identity($0)) }
            if let vouched,
                let owner = try await r.first(IdentitiesTable.emailOwner, [.text(app), .text(vouched)], { try $0.text("user_id") }),
                owner != identity?.userId
            {
                return .taken
            }
            try await r.run(UserpassAccountsTable.changeEmail, [.text(to), .bool(verified), .bool(verified), .text(app), .text(from)])
            try await r.run(OneTimeTokensTable.deleteAllOfEmail, [.text(app), .text(from)])
            // An account that never logged in has no identity, user or session yet.
            guard let (userId, record) = identity else { return .changed }
            var data = record.data
            data["email"] = .string(to)
            try await r.run(
                IdentitiesTable.setDataAndEmail,
                [data.sqlValue, .text(vouched), .text(app), .text(ProviderType.userpass), .text(account.identityId)])
            if var profile = try await r.first(UsersTable.selectData, [.text(userId)], { try $0.document("user_data") }) ?? nil,
                profile["email"]?.stringValue == from
            {
                profile["email"] = .string(to)
                try await r.run(UsersTable.setData, [profile.sqlValue, .text(userId)])
            }
            // Session ids are never empty: "" keeps none.
            try await r.run(SessionsTable.deleteOthersOfUser, [.text(userId), .text(app), .text(keepSession ?? "")])
            return .changed
        }
    }
}
