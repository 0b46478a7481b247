// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// What the admin API reads and changes beyond the users' own operations. One area of ``AuthStore``.
public protocol AdminStore: Sendable {
    /// One page of the app's users that `query` selects, by id, each with its identities.
    func listUsers(app: String, query: UserQuery) async throws -> [AdminUserRecord]
    /// The user with its identities and last login, or nil.
    func adminUser(id: String, app: String) async throws -> AdminUserRecord?
    /// Disables (logins and tokens refused, sessions kept for an enable) or enables the user;
    /// false when the app has no such user.
    func setUserDisabled(_ disabled: Bool, id: String, app: String) async throws -> Bool
}
