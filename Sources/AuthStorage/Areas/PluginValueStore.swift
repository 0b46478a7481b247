// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The plugins' key-value store (`context.store`), one namespace per app. One area of ``AuthStore``.
public protocol PluginValueStore: Sendable {
    func pluginValue(app: String, key: String) async throws -> EJSON?
    /// Replaces, or inserts while the app holds fewer than `keyLimit` keys; false when a new key
    /// would pass the limit (nothing written).
    func setPluginValue(_ value: EJSON, app: String, key: String, keyLimit: Int) async throws -> Bool
    func deletePluginValue(app: String, key: String) async throws
}
