// SPDX-License-Identifier: Apache-2.0

/// A PostgreSQL database as `--database` and the config key `database` name it (read by
/// `init(url:key:passwordAllowed:environment:)` in the server's configuration):
/// `postgres://USER@HOST:PORT/DATABASE?sslmode=MODE` (`postgresql://` too; `?host=/DIR` for a
/// Unix socket directory, as libpq reads it). The password comes from `PGPASSWORD`, or from a
/// URL that itself comes from `{"env": NAME}` or `{"file": PATH}`: never from a command line
/// (where `ps` shows it) or a plain config value, and never in a log or an error.
public struct PostgresDatabase: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    /// A host name or address; nil with ``socketDirectory``.
    public var host: String?
    public var port: Int
    /// The directory of the server's Unix socket (`?host=/DIR`).
    public var socketDirectory: String?
    public var database: String
    /// libpq's `sslmode`: `disable`, `prefer` (the default), `require`, `verify-ca`, `verify-full`.
    public var sslMode: String
    public var password: String?
    /// Connections the pool may open (`?pool=N`, default 10).
    public var poolSize: Int
    /// How long the server waits at start-up for the database to answer and migrate.
    public var startupTimeout = Duration.seconds(30)

    /// The URL without its password, for messages.
    public var description: String {
        if let socketDirectory { return "postgres://\(user)@:\(port)/\(database)?host=\(socketDirectory)" }
        return "postgres://\(user)@\(host ?? ""):\(port)/\(database)"
    }

    /// libpq's `sslmode` values.
    public static let sslModes = ["disable", "prefer", "require", "verify-ca", "verify-full"]

    public init(
        user: String, host: String?, port: Int, socketDirectory: String?, database: String, sslMode: String, password: String?,
        poolSize: Int
    ) {
        self.user = user
        self.host = host
        self.port = port
        self.socketDirectory = socketDirectory
        self.database = database
        self.sslMode = sslMode
        self.password = password
        self.poolSize = poolSize
    }
}
