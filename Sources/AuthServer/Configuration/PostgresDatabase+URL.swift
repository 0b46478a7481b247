// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import Foundation

extension PostgresDatabase {
    /// Reads `url`; `passwordAllowed` when it came from the environment or a file.
    /// - Throws: ``ConfigError`` under `key`, naming what is wrong (never the password).
    public init(
        url: String, key: String, passwordAllowed: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) {
        func bad(_ reason: String) -> ConfigError { ConfigError(key: key, reason: reason) }
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw bad("must be sqlite:PATH or postgres://USER@HOST:PORT/DATABASE")
        }
        if components.password != nil {
            guard passwordAllowed else {
                throw bad("holds a password: give it in PGPASSWORD, or give the whole URL as {\"env\": NAME} or {\"file\": PATH}")
            }
        }
        guard let user = components.user, !user.isEmpty else { throw bad("needs a user (postgres://USER@HOST/DATABASE)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw bad("needs a database name (postgres://USER@HOST/DATABASE)") }
        var sslMode = "prefer", socket: String?, pool = 10
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let v = item.value, Self.sslModes.contains(v) else {
                    throw bad("sslmode must be one of \(Self.sslModes.joined(separator: ", "))")
                }
                sslMode = v
            case "host":
                guard let v = item.value, v.hasPrefix("/") else { throw bad("?host= must be the directory of a Unix socket") }
                socket = v
            case "pool":
                guard let v = item.value, let n = Int(v), (1...500).contains(n) else { throw bad("pool must be from 1 to 500 connections") }
                pool = n
            default:
                throw bad("unknown parameter '\(item.name)' (sslmode, host and pool are known)")
            }
        }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        guard host != nil || socket != nil else { throw bad("needs a host (postgres://USER@HOST/DATABASE, or ?host=/SOCKET/DIR)") }
        self.init(
            user: user.removingPercentEncoding ?? user, host: socket == nil ? host : nil, port: components.port ?? 5432,
            socketDirectory: socket, database: database.removingPercentEncoding ?? database, sslMode: sslMode,
            password: components.password?.removingPercentEncoding ?? environment["PGPASSWORD"], poolSize: pool)
    }
}
