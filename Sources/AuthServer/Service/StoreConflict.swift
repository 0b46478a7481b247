// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol

/// Runs a store call whose conflict (a unique key taken) means `conflict` to the client.
func storing<T>(_ conflict: ServiceError, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let e as StoreError where e.isConflict {
        throw conflict
    }
}
