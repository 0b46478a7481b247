// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import AuthServer
import CommandSupport
import Glibc

/// Where `serve`, `audit` and `admin` find a server's configuration and database: `--data`,
/// `--database` and `--config`. The command line wins over the config file.
struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server's data directory: its SQLite database and keys (default as for authsh).", valueName: "dir"))
    var data: String?

    /// Read as text and checked in `validate`: an option's transform would have the parser
    /// repeat the value in its error, and a URL may hold a password.
    @Option(
        help: ArgumentHelp(
            """
            sqlite:PATH, or postgres://USER@HOST:PORT/DB?sslmode=MODE (the password from PGPASSWORD; \
            config key database).
            """, valueName: "url"))
    var database: String?

    @Option(help: ArgumentHelp("A server config file: its apps, database and the rest (default: one app, `local`).", valueName: "file"))
    var config: String?

    /// `--database` parsed (a password in it is refused, and never shown).
    private var parsedDatabase: ServerConfiguration.Database? {
        get throws { try database.map { try ServerConfiguration.Database.parse($0, key: "--database", passwordAllowed: false) } }
    }

    func validate() throws {
        do { _ = try parsedDatabase } catch { throw ValidationError("\(error)") }
    }

    /// The largest config file read (a config of thousands of apps is far smaller).
    static let configLimit = 16 << 20

    /// `base` with the config file read into it, then the command line's database; nil when
    /// the file cannot be read or is not a valid config (reported as `NAME: ...` on stderr: exit 78).
    func configuration(_ base: ServerConfiguration = ServerConfiguration(), command name: String) -> ServerConfiguration? {
        var configuration = base
        configuration.database = .directory(Paths.defaultDataDirectory())
        if let file = config {
            do { try configuration.loadConfig(try RegularFile.read(file, limit: Self.configLimit), file: file) } catch let failure
                as RegularFile.Failure
            {
                Output.error("\(name): config \(failure)")
                return nil
            } catch {
                Output.error("\(name): \(error)")
                return nil
            }
        }
        if let data { configuration.database = .directory(data) }
        if let database = try? parsedDatabase { configuration.database = database }  // checked by `validate`
        return configuration
    }

    /// The SQLite file named (in a data directory or by `sqlite:PATH`) that does not exist, else
    /// nil: commands that read a database must not create one where a path was mistyped.
    static func missingDatabase(_ configuration: ServerConfiguration) -> String? {
        let path: String
        switch configuration.database {
        case .directory(let dir): path = dir + "/authsh.sqlite"
        case .sqliteFile(let file): path = file
        case .memory, .postgres: return nil
        }
        return access(path, F_OK) == 0 ? nil : path
    }
}
