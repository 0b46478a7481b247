import PostgresNIO

extension PostgresDatabase {
    /// How long a pooled connection stays idle before it runs a keep-alive query.
    static let keepAlive: Duration = .seconds(5)

    /// postgres-nio's configuration: the socket or host, the user, the password, TLS as
    /// `sslmode` says (libpq's meanings), the pool's size (for a server, `serving`: all of its
    /// connections kept open, with a keep-alive after ``keepAlive`` idle).
    func clientConfiguration(serving: Bool) -> PostgresClient.Configuration {
        var c: PostgresClient.Configuration
        if let socketDirectory {
            c = .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            var tls: PostgresClient.Configuration.TLS
            switch sslMode {
            case "disable":
                tls = .disable
            case "require":
                var unverified = TLSConfiguration.makeClientConfiguration()
                unverified.certificateVerification = .none
                tls = .require(unverified)
            case "verify-ca":
                var caOnly = TLSConfiguration.makeClientConfiguration()
                caOnly.certificateVerification = .noHostnameVerification
                tls = .require(caOnly)
            case "verify-full":
                tls = .require(.makeClientConfiguration())
            default:
                tls = .prefer(.makeClientConfiguration())
            }
            c = .init(host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: tls)
        }
        c.options.maximumConnections = poolSize
        if serving {
            // postgres-nio's pool (1.33) leaves each timer's task alive until the timer's time is
            // up, even when a lease cancels it, so a server's memory grew with the request rate
            // times the timer: a keep-alive after 30 s idle and an idle timeout of 60 s took the
            // anonymous memory from 19 to 74 MiB over 80 s of logins. A pool that keeps all its
            // connections schedules no idle timeout, and a keep-alive after 5 s bounds the rest
            // (8 to 10 MiB, flat); a connection a firewall dropped is still found within 5 s of
            // idleness. A command (`audit`, `migrate`) opens connections as it needs them.
            c.options.minimumConnections = poolSize
            c.options.keepAliveBehavior = .init(frequency: Self.keepAlive)
        }
        return c
    }
}
