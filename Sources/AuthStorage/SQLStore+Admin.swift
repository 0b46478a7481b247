// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// What administration reads and changes of users.
extension SQLStore {
    public func listUsers(app: String, query: UserQuery) async throws -> [AdminUserRecord] {
        try await engine.snapshot("list users") { r in
            let page = try await r.all(UsersTable.list, UsersTable.listArguments(app: app, query)) {
                (id: try $0.text("id"), lastLogin: try $0.optionalInt64("last_login_at"), validSince: try $0.optionalInt64("valid_since"))
            }
            var users: [AdminUserRecord] = []
            users.reserveCapacity(page.count)
            for entry in page {
                let rows = try await r.all(UsersTable.withIdentities, [.text(entry.id), .text(app)], UsersTable.userAndIdentity)
                if let user = UsersTable.userWithIdentities(rows) {
                    users.append(AdminUserRecord(user: user, lastLoginAt: entry.lastLogin, validSince: entry.validSince))
                }
            }
            return users
        }
    }

    public func adminUser(id: String, app: String) async throws -> AdminUserRecord? {
        try await engine.snapshot("read user") { r in
            let rows = try await r.all(UsersTable.withIdentities, [.text(id), .text(app)], UsersTable.userAndIdentity)
            guard let user = UsersTable.userWithIdentities(rows) else { return nil }
            let times = try await r.first(UsersTable.lastLogin, [.text(id), .text(app)]) {
                (lastLogin: try $0.optionalInt64("last_login_at"), validSince: try $0.optionalInt64("valid_since"))
            }
            return AdminUserRecord(user: user, lastLoginAt: times?.lastLogin, validSince: times?.validSince)
        }
    }

    public func setUserDisabled(_ disabled: Bool, id: String, app: String) async throws -> Bool {
        try await engine.write("disable user") { r in
            try await r.count(UsersTable.setDisabled, [.bool(disabled), .text(id), .text(app)]) == 1
        }
    }
}
