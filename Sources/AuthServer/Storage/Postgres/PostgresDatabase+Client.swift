import PostgresNIO

extension PostgresDatabase {
    /// postgres-nio's configuration: the socket or host, the user, the password, TLS as
    /// `sslmode` says (libpq's meanings), the pool's size.
    var clientConfiguration: PostgresClient.Configuration {
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
        return c
    }
}
