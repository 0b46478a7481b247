// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The apps' and the server's key material. One area of ``AuthStore``.
public protocol SigningKeyStore: Sendable {
    /// The app's key material for `algorithm`, creating it with `make` if there is none yet.
    func signingKey(app: String, algorithm: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8]
    /// The app's key material for `algorithm`, or nil when none was made yet.
    func existingSigningKey(app: String, algorithm: String) async throws -> [UInt8]?
}
