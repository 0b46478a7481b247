// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Export and import of an app's users. One area of ``AuthStore``.
public protocol TransferStore: Sendable {
    /// Up to `limit` of the app's users after id `cursor` (nil: from the first), by id, each
    /// with its identities, last login and email/password accounts.
    func exportUsers(app: String, after cursor: String?, limit: Int) async throws -> [PortableUser]
    /// How many users the app has.
    func countUsers(app: String) async throws -> Int
    /// Up to `limit` email/password accounts no user holds yet (never logged in), by email after `cursor`.
    func exportLooseAccounts(app: String, after cursor: String?, limit: Int) async throws -> [UserpassAccount]
    /// Writes users (skipping those whose id exists) and accounts without a user (skipping
    /// those whose email exists), in one transaction. A conflict (an identity or email another
    /// user holds) fails it whole.
    func importUsers(_ users: [PortableUser], looseAccounts: [UserpassAccount]) async throws -> ImportCounts
}
