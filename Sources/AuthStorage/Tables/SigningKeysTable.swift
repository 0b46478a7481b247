// SPDX-License-Identifier: Apache-2.0
/// `signing_keys`: each app's token signing key material, one row per algorithm.
package enum SigningKeysTable {
    package static let select: SQL = "SELECT material FROM signing_keys WHERE app_id = ? AND algorithm = ?"
    /// Keeps the first key when two instances make one at once.
    package static let insert: SQL = "INSERT INTO signing_keys (app_id, algorithm, material) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
}
