/// `plugin_values`: the plugins' key-value store (`context.store`), one namespace per app.
enum PluginValuesTable {
    static let select: SQL = "SELECT value FROM plugin_values WHERE app_id = ? AND key = ?"
    static let upsert: SQL = """
        INSERT INTO plugin_values (app_id, key, value) VALUES (?, ?, ?)
        ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value
        """
    static let delete: SQL = "DELETE FROM plugin_values WHERE app_id = ? AND key = ?"
}
