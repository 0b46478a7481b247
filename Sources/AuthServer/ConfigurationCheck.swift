// SPDX-License-Identifier: Apache-2.0
/// What `authsh serve --check` says about a configuration that can be served.
public struct ConfigurationCheck: Sendable {
    /// The apps' ids.
    public let apps: [String]
    /// The plugin functions the plugins directory exports.
    public let functions: [String]

    /// Builds everything a server builds from `configuration` (apps, identity providers,
    /// keys, plugins and the names the config gives them, mail templates and settings, admin
    /// keys, the TLS certificate and key) against a private in-memory database, so the real one is neither opened nor made
    /// and no port is bound.
    /// - Throws: the ``ConfigError`` a server would stop with.
    public static func run(_ configuration: ServerConfiguration) async throws -> ConfigurationCheck {
        if let tls = configuration.tls { _ = try TLSCredentials.load(tls) }
        var c = configuration
        c.database = .memory
        c.reloadPluginsOnHangup = false
        let store = try await openStore(c, serving: false)
        defer { store.close() }
        let services = try await ServerServices(configuration: c, store: store)
        return ConfigurationCheck(apps: services.apps.keys.sorted(), functions: services.plugins.exports.sorted())
    }
}
