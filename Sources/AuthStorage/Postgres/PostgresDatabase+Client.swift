// SPDX-License-Identifier: Apache-2.0
import PostgresNIO

extension PostgresDatabase {
    /// How long a pooled connection beyond the first may stay idle before the pool closes it
    /// (a server's pool).
    package static let idleTimeout: Duration = .seconds(10)
    /// How long a pooled connection stays idle before it runs a keep-alive query.
    package static let keepAlive: Duration = .seconds(5)

    /// postgres-nio's configuration: the socket or host, the user, the password, TLS as
    /// `sslmode` says (libpq's meanings), the pool's size (for a server, `serving`: one
    /// connection always open, the others closed after ``idleTimeout`` idle, a keep-alive after
    /// ``keepAlive``).
    package func clientConfiguration(serving: Bool) -> PostgresClient.Configuration {
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
            // Three faults of postgres-nio's pool (1.33, and its latest code alike) decide this:
            //
            // - With a minimum of 3 connections or more, a restart of PostgreSQL killed the
            //   process. While connections cannot be made, the pool retries one and drops the
            //   others without making them again, so it holds fewer than its minimum; once the
            //   database is back, two queued requests make it open one more (2 in all), and the
            //   next lease fails the precondition `minimumConcurrentConnections <= stats.active`
            //   (PoolStateMachine+ConnectionGroup, createNewDemandConnectionIfPossible): the
            //   process traps. With a minimum of 1 or 2 that count can never be short of it.
            // - With no minimum, a request can wait for ever once the last connection has closed
            //   (its idle timeout): the pool makes no new one for it. Hence 1, not 0.
            // - Each timer's task stays alive until its time is up, even when a lease cancels it,
            //   so memory grows with the request rate times the timer (a 60 s idle timeout and a
            //   30 s keep-alive took the anonymous memory from 19 to 74 MiB over 80 s of logins).
            //   Hence short ones: a connection beyond the first is closed after ``idleTimeout``
            //   idle, and every idle one runs a keep-alive after ``keepAlive`` (which also finds
            //   one a firewall cut).
            c.options.minimumConnections = 1
            c.options.connectionIdleTimeout = Self.idleTimeout
            c.options.keepAliveBehavior = .init(frequency: Self.keepAlive)
        }
        return c
    }
}
