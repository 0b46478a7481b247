// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Logging
import Synchronization
import Testing

/// A plugins directory of its own for one test, removed afterwards.
final class PluginDirectory: Sendable {
    let path: String

    init(_ files: [String: String]) throws {
        path = Scratch.path("plugins")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, source) in files { try write(name, source) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ source: String) throws {
        try Data(source.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    /// The repository's example plugins (`plugins/`).
    static var examples: String {
        URL(fileURLWithPath: Binary.repository).appendingPathComponent("plugins").path
    }
}

extension Client {
    /// `POST {app}/functions/call`.
    func function(_ name: String, _ arguments: [EJSON] = [], token: String) async throws -> Reply {
        try await call(.post, Routes.functionsCall(app), json: ["name": .string(name), "arguments": .array(arguments)], token: token)
    }

    /// An anonymous user's access token.
    func anonymousToken() async throws -> String {
        try #require(try await anonymous()["access_token"])
    }
}

extension TestServer {
    /// A dev server whose one app `local` has `configure` applied, with plugins from `plugins`.
    static func withPlugins(
        _ plugins: String, timeLimit: Duration = .seconds(1),
        _ configure: (inout AppConfiguration) -> Void = { _ in }
    ) -> ServerConfiguration {
        var app = AppConfiguration(id: "local")
        configure(&app)
        var c = configuration(apps: [app], plugins: plugins)
        c.pluginTimeLimit = timeLimit
        return c
    }
}

/// Log lines a server wrote, for tests that check what reaches the log.
final class CapturedLog: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    let lines = Mutex<[Line]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
            file: String, function: String, line: UInt
        ) {
            let all = self.metadata.merging(metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            log.lines.withLock { $0.append(Line(level: level, message: "\(message)", metadata: all)) }
        }
    }
}
