// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// A server with admin keys, and the admin API's calls: what the admin, trigger, hook and
/// passkey tests share.
enum AdminHarness {
    static let key = "ops-key-0123456789abcdef0123456789abcdef"
    static let base = "/api/admin/v1/apps/local"

    /// A server with two admin keys (`ops`, `ci`), a SQLite file in `directory`, and no rate limits.
    static func configuration(directory: String, plugins: String? = nil) throws -> ServerConfiguration {
        var config = TestServer.configuration(database: .directory(directory), plugins: plugins)
        config.adminKeys = try AdminKeys([(name: "ops", key: key), (name: "ci", key: "ci-key-abcdefabcdefabcdefabcdefabcdef")])
        config.apps[0].rateLimits.enabled = false
        return config
    }

    /// A server on a fresh SQLite file with ``configuration(directory:plugins:)``, `plugins`
    /// (file name to Lua source) in its plugin directory and `configure` applied; `body` gets
    /// the client and the database file's path.
    static func withServer(
        plugins: [String: String] = [:], configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (Client, String) async throws -> Void
    ) async throws {
        let directory = Scratch.path("admin")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pluginDirectory = try PluginDirectory(plugins)
        var config = try configuration(directory: directory, plugins: pluginDirectory.path)
        configure(&config)
        try await TestServer.run(config) { c in try await body(c, directory + "/authsh.sqlite") }
    }

    /// An admin API call on the app `local` (`key` nil: none).
    @discardableResult
    static func admin(
        _ c: Client, _ method: HTTPRequest.Method, _ path: String, json: EJSON? = nil, key: String? = key,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        try await c.call(
            method, base + path, json: json, headers: [("Authorization", key.map { "Bearer " + $0 })],
            sourceLocation: sourceLocation)
    }

    static func userId(_ reply: Reply) throws -> String { try #require(reply["user_id"]) }
}
