// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// Sign-ins under way (redirect flows, login codes, second steps), shared by every instance. One area of ``AuthStore``.
public protocol SignInStore: Sendable {
    func insertSignIn(_ signIn: SealedSignIn) async throws
    /// Removes it and gives it back; nil when there is none (unknown, or taken already by
    /// this or another instance).
    func takeSignIn(id: String, kind: SealedSignIn.Kind) async throws -> SealedSignIn?
    /// Deletes the sign-ins expired at `time`, of every app; returns how many.
    func deleteExpiredSignIns(at time: Int64) async throws -> Int
}
