// SPDX-License-Identifier: Apache-2.0
/// `plugin_values`: the plugins' key-value store (`context.store`), one namespace per app.
package enum PluginValuesTable {
    package static let select: SQL = "SELECT value FROM plugin_values WHERE app_id = ? AND key = ?"
    package static let upsert: SQL = """
        INSERT INTO plugin_values (app_id, key, value) VALUES (?, ?, ?)
        ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value
        """
    package static let delete: SQL = "DELETE FROM plugin_values WHERE app_id = ? AND key = ?"
    /// Whether the app holds `key` (arguments: app, key).
    package static let exists: SQL = "SELECT 1 AS found FROM plugin_values WHERE app_id = ? AND key = ?"
    /// How many keys the app holds (`pluginLimits.storeKeys`).
    package static let count: SQL = "SELECT COUNT(*) AS n FROM plugin_values WHERE app_id = ?"
}
