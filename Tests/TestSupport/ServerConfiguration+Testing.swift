// SPDX-License-Identifier: Apache-2.0
import AuthServer

extension ServerConfiguration {
    /// A server for a test: an ephemeral port, dev mode, no plugins, cheap password hashing
    /// (``PasswordHasher`` parameters for tests), the app `local`, in memory unless said.
    public static func testing(
        apps: [AppConfiguration] = [AppConfiguration(id: "local")], database: ServerConfiguration.Database = .memory, dev: Bool = true,
        plugins: String? = nil
    ) -> ServerConfiguration {
        var c = ServerConfiguration()
        c.pluginsDirectory = plugins
        c.port = 0
        c.apps = apps
        c.database = database
        c.dev = dev
        c.passwordParameters = .testing
        return c
    }
}
