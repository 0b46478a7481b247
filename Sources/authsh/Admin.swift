import AuthClient
import AuthProtocol
import AuthServer
import Foundation

/// `authsh admin`: administer users through a server's admin API or directly on its database.
enum Admin {
    static let usage = """
        usage: authsh admin [--server URL | --data DIR | --database URL] [--config FILE] [--app ID] [--json] COMMAND
          users list [--email PREFIX] [--provider TYPE] [--state enabled|disabled] [--created-after T]
                     [--created-before T] [--last-login-after T] [--last-login-before T] [--limit N] [--all]
          users show ID
          users disable ID | users enable ID | users delete ID | users revoke ID
          users reset ID          send the user's reset mail
          users confirm EMAIL     confirm a pending email/password account
          export FILE             every user, as NDJSON (FILE - for standard output)
          import FILE [--continue-on-error]
        """

    static let help = """
        authsh admin: administer a server's users.

        \(usage)

        With --server, the server's admin API, with the key in AUTHSH_ADMIN_KEY (the server's
        config lists it under adminKeys). Otherwise the database itself: --data DIR (default as
        for `authsh serve`), --database URL, or the database of --config FILE (whose apps are
        then the ones known); the audit log names the actor admin:authsh-admin.

        `export` writes one JSON object per user (identities, profile and custom data, state,
        password hashes as they are), made 0600 and renamed into place only once complete.
        `import` checks every line before writing any: a rejected line (named with its number
        and reason) imports nothing unless --continue-on-error. Users whose id, and accounts
        whose email, the app has already are skipped, so importing twice changes nothing.
        Argon2id and bcrypt hashes are kept; bcrypt ones become Argon2id at the next login.

        T is unix seconds, an ISO-8601 time, or 30m, 2h, 7d (that long ago). `users list` prints
        one page (--limit, default 50; --all for every page); --json prints one JSON object per
        user per line (and the user for `show`).
        """

    struct Options {
        var server: String?
        var configuration = ServerConfiguration()
        var app = "local"
        var json = false
        var words: [String] = []
        var filters: [String: String] = [:]
        var all = false
        var continueOnError = false
    }

    static func main(_ args: [String]) -> Int32 {
        var o = Options()
        o.configuration.database = .directory(Paths.defaultDataDirectory())
        var configFile: String?
        var i = 0
        func value() -> String? {
            i += 1
            return i < args.count ? args[i] : nil
        }
        func bad(_ message: String) -> Int32 {
            Output.error("authsh admin: \(message)\n\(usage)")
            return ExitStatus.usage
        }
        let times = ["--created-after": "createdAfter", "--created-before": "createdBefore",
                     "--last-login-after": "lastLoginAfter", "--last-login-before": "lastLoginBefore"]
        while i < args.count {
            let arg = args[i]
            switch arg {
            case "-h", "--help":
                print(help)
                return 0
            case "--server":
                guard let v = value(), v.hasPrefix("http://") || v.hasPrefix("https://") else { return bad("--server needs an http(s):// URL") }
                o.server = v
            case "--data":
                guard let v = value() else { return bad("--data needs a directory") }
                o.configuration.database = .directory(v)
            case "--database":
                guard let v = value() else { return bad("--database needs sqlite:PATH or a postgres:// URL") }
                do { o.configuration.database = try ServerConfiguration.Database.parse(v, key: "--database", passwordAllowed: false) } catch {
                    return bad("\(error)")
                }
            case "--config":
                guard let v = value() else { return bad("--config needs a file") }
                configFile = v
            case "--app":
                guard let v = value(), !v.isEmpty else { return bad("--app needs an app id") }
                o.app = v
            case "--json": o.json = true
            case "--all": o.all = true
            case "--continue-on-error": o.continueOnError = true
            case "--email", "--provider", "--state", "--limit":
                guard let v = value() else { return bad("\(arg) needs a value") }
                o.filters[String(arg.dropFirst(2))] = v
            case _ where times[arg] != nil:
                guard let v = value(), let t = time(v) else { return bad("\(arg) needs unix seconds, an ISO-8601 time, or 30m, 2h, 7d") }
                o.filters[times[arg]!] = String(t)
            default:
                guard !arg.hasPrefix("-") || arg == "-" else { return bad("unknown option '\(arg)'") }
                o.words.append(arg)
            }
            i += 1
        }
        guard let command = Command(o.words) else {
            return bad(o.words.isEmpty ? "a command is needed" : "unknown command '\(o.words.joined(separator: " "))'")
        }
        if let configFile {
            guard let bytes = Files.read(configFile) else { return bad("--config \(configFile): cannot read it") }
            do { try o.configuration.loadConfig(bytes, file: configFile) } catch {
                Output.error("authsh admin: \(error)")
                return Serve.configError
            }
        }
        var key: String?
        if o.server != nil {
            guard let k = ProcessInfo.processInfo.environment["AUTHSH_ADMIN_KEY"], !k.isEmpty else {
                return bad("--server needs the admin key in AUTHSH_ADMIN_KEY")
            }
            key = k
        } else if case .directory(let dir) = o.configuration.database, !FileManager.default.fileExists(atPath: dir + "/authsh.sqlite"),
                  !command.createsDatabase {
            Output.error("authsh admin: no database at \(dir)/authsh.sqlite")
            return ExitStatus.failure
        }
        let options = o, adminKey = key
        return Serve.runBlocking {
            do {
                if let server = options.server, let adminKey {
                    try await command.run(AdminClient(server: server, key: adminKey, app: options.app), options)
                } else {
                    try await AdminTarget.withLocalServer(options.configuration, app: options.app) { client in
                        try await command.run(client, options)
                    }
                }
                return 0
            } catch let error as AuthClientError {
                Output.error("authsh admin: \(error.message)\(error.code.isEmpty ? "" : " (\(error.code))")")
                return ExitStatus.failure
            } catch {
                Output.error("authsh admin: \(error)")
                return ExitStatus.failure
            }
        }
    }

    /// Unix seconds from unix seconds, an ISO-8601 time, or a duration ago (`30m`).
    static func time(_ text: String) -> Int64? {
        if let n = Int64(text), n >= 0 { return n }
        return AuditCommand.since(text)
    }

    /// A command of `authsh admin`.
    enum Command: Sendable {
        case list
        case show(String)
        case disable(String), enable(String), delete(String), revoke(String), reset(String)
        case confirm(String)
        case export(String)
        case `import`(String)

        init?(_ words: [String]) {
            if words.count == 2 && words[0] == "export" {
                self = .export(words[1])
                return
            }
            if words.count == 2 && words[0] == "import" {
                self = .import(words[1])
                return
            }
            guard words.count >= 2, words[0] == "users" else { return nil }
            if words.count == 2 {
                guard words[1] == "list" else { return nil }
                self = .list
                return
            }
            guard words.count == 3 else { return nil }
            let argument = words[2]
            switch words[1] {
            case "show": self = .show(argument)
            case "disable": self = .disable(argument)
            case "enable": self = .enable(argument)
            case "delete": self = .delete(argument)
            case "revoke": self = .revoke(argument)
            case "reset": self = .reset(argument)
            case "confirm": self = .confirm(argument)
            default: return nil
            }
        }

        /// An import may fill a new database; every other command needs one that exists.
        var createsDatabase: Bool {
            if case .import = self { return true }
            return false
        }

        func run(_ client: AdminClient, _ o: Options) async throws {
            switch self {
            case .list:
                var filters = o.filters
                repeat {
                    let page = try await client.listUsers(filters)
                    for user in page.users { print(o.json ? user.encodedString(.relaxed) : AdminOutput.line(user)) }
                    filters["cursor"] = page.next
                } while o.all && filters["cursor"] != nil
            case .show(let id):
                let user = try await client.user(id)
                print(o.json ? user.encodedString(.relaxed) : AdminOutput.details(user))
            case .disable(let id):
                try await client.disable(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "disabled": true]) : "disabled \(id)")
            case .enable(let id):
                try await client.enable(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "disabled": false]) : "enabled \(id)")
            case .delete(let id):
                try await client.delete(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "deleted": true]) : "deleted \(id)")
            case .revoke(let id):
                let n = try await client.revokeSessions(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "revoked": .int64(Int64(n))]) : "revoked \(n) session\(n == 1 ? "" : "s") of \(id)")
            case .reset(let id):
                try await client.sendReset(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "sent": true]) : "sent the reset mail of \(id)")
            case .export(let path):
                let progress = TransferProgress()
                let result = try await client.export(to: path) { progress.show($0) }
                progress.finish()
                let message = "exported \(result.users) users and \(result.accounts) accounts without a user to \(path)"
                if path == "-" { Output.error(message) } else { print(o.json ? AdminOutput.json(["users": .int64(Int64(result.users)), "accounts": .int64(Int64(result.accounts))]) : message) }
            case .import(let path):
                let progress = TransferProgress()
                do {
                    let report = try await client.importFile(path, continueOnError: o.continueOnError) { progress.show($0) }
                    progress.finish()
                    if o.json {
                        print(report.encodedString(.relaxed))
                    } else {
                        print("imported \(report["imported"]?.integerValue ?? 0), skipped \(report["skipped"]?.integerValue ?? 0) (there already), rejected \(report["rejectedCount"]?.integerValue ?? 0)")
                        for r in report["rejected"]?.arrayValue ?? [] { print("  line \(r["line"]?.integerValue ?? 0): \(r["reason"]?.stringValue ?? "")") }
                    }
                } catch let error as AuthClientError where !error.details.isEmpty {
                    progress.finish()
                    for r in EJSON.document(error.details)["rejected"]?.arrayValue ?? [] {
                        Output.error("  line \(r["line"]?.integerValue ?? 0): \(r["reason"]?.stringValue ?? "")")
                    }
                    throw error
                }
            case .confirm(let email):
                try await client.confirm(email: email)
                print(o.json ? AdminOutput.json(["email": .string(email), "confirmed": true]) : "confirmed \(email)")
            }
        }
    }
}
