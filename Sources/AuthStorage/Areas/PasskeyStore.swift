// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Users' passkeys. One area of ``AuthStore``.
public protocol PasskeyStore: Sendable {
    /// Adds a passkey unless the user holds `limit` already (false); conflict when its id exists.
    func insertPasskey(_ passkey: PasskeyRecord, limit: Int) async throws -> Bool
    /// The user's passkeys, oldest first.
    func passkeys(userId: String) async throws -> [PasskeyRecord]
    func passkey(app: String, id: String) async throws -> PasskeyRecord?
    /// Records a use with the authenticator's `signCount` at `time`, if the counter grew (or
    /// both it and the stored one are 0: an authenticator that keeps none); false otherwise.
    func usePasskey(app: String, id: String, signCount: Int64, at time: Int64) async throws -> Bool
    func renamePasskey(app: String, id: String, userId: String, name: String) async throws -> Bool
    /// Removes the user's passkey and ends the sessions it opened; false when they have none of that id.
    func deletePasskey(app: String, id: String, userId: String) async throws -> Bool
}
