// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Pending credentials: an identity waiting to be linked to the account that holds its email (one account per email). One area of ``AuthStore``.
public protocol PendingCredentialStore: Sendable {
    func insertPendingCredential(_ credential: PendingCredential) async throws
    func pendingCredential(app: String, id: String) async throws -> PendingCredential?
    /// Removes it; true when this call did (so a credential is used once, whoever races).
    func deletePendingCredential(app: String, id: String) async throws -> Bool

    /// Deletes the pending credentials expired at `time`, of every app; returns how many.
    func deleteExpiredPendingCredentials(at time: Int64) async throws -> Int
}
