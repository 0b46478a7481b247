// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import ArgumentParser
import AuthClient
import AuthProtocol
import AuthServer
import CommandSupport
import Foundation

/// Running `authsh admin`.
enum Admin {
    struct Options {
        var server: String?
        var configuration = ServerConfiguration()
        var app = "local"
        var json = false
        var filters: [String: String] = [:]
        var all = false
        var continueOnError = false
    }

    static func main(_ args: [String]) -> Int32 {
        let parsed: any ParsableCommand
        do {
            parsed = try CommandLineUsage.parse(AdminCommand.self, args)
        } catch {
            return CommandLineUsage.report(error, of: AdminCommand.self)
        }
        if let backup = parsed as? AdminCommand.Backup { return Self.backup(backup.admin, file: backup.file, restore: false) }
        if let restore = parsed as? AdminCommand.Restore { return Self.backup(restore.admin, file: restore.file, restore: true) }
        guard let leaf = parsed as? any AdminLeaf else {
            if parsed is AdminCommand || parsed is AdminCommand.Users {  // `authsh admin` or `authsh admin users` alone
                return CommandLineUsage.report(ValidationError("a command is needed"), of: AdminCommand.self)
            }
            // swift-argument-parser's help (`--help` at any level, or `help`): it prints the screen.
            var help = parsed
            do { try help.run() } catch { return CommandLineUsage.report(error, of: AdminCommand.self) }
            return 0
        }
        let admin = leaf.admin
        let command = leaf.command
        guard let configuration = admin.place.configuration(command: "authsh admin") else { return Serve.configError }
        var o = Options(server: admin.server, configuration: configuration, app: admin.app, json: admin.json)
        if let list = leaf as? AdminCommand.List {
            o.filters = list.filters
            o.all = list.all
        }
        if let importing = leaf as? AdminCommand.Import { o.continueOnError = importing.continueOnError }
        func bad(_ message: String) -> Int32 { CommandLineUsage.report(ValidationError(message), of: AdminCommand.self) }
        var key: String?
        if o.server != nil {
            guard let k = ProcessInfo.processInfo.environment["AUTHSH_ADMIN_KEY"], !k.isEmpty else {
                return bad("--server needs the admin key in AUTHSH_ADMIN_KEY")
            }
            key = k
        } else if !command.createsDatabase, let missing = DatabaseOptions.missingDatabase(o.configuration) {
            Output.error("authsh admin: no database at \(missing)")
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

    /// `authsh admin backup FILE` and `restore FILE`: the database file itself, never through a
    /// server.
    static func backup(_ admin: AdminCommand, file: String, restore: Bool) -> Int32 {
        let verb = restore ? "restore" : "backup"
        func bad(_ message: String) -> Int32 { CommandLineUsage.report(ValidationError(message), of: AdminCommand.self) }
        guard admin.server == nil else {
            return bad("\(verb) works on the database file: run it where the database is, with --data, --database sqlite:PATH or --config")
        }
        guard let configuration = admin.place.configuration(command: "authsh admin") else { return Serve.configError }
        let database: String
        switch configuration.database {
        case .directory(let dir):
            if restore && !Files.makeDirectory(dir) {
                Output.error("authsh admin: cannot make \(dir): \(String(cString: strerror(errno)))")
                return ExitStatus.failure
            }
            database = dir + "/authsh.sqlite"
        case .sqliteFile(let path): database = path
        case .postgres:
            Output.error("authsh admin: \(verb) is for SQLite databases; for PostgreSQL use pg_dump and pg_restore (see Administering users)")
            return ExitStatus.failure
        case .memory:
            return bad("\(verb) needs a database on disk")
        }
        do {
            let copy = restore ? try SQLiteBackup.restore(from: file, to: database) : try SQLiteBackup.copy(from: database, to: file)
            let size = String(format: "%.1f", Double(copy.bytes) / 1_048_576)
            if admin.json {
                var out: EJSONDocument = ["file": .string(file), "database": .string(database), "bytes": .int64(Int64(copy.bytes))]
                if let replaced = copy.replaced { out["replaced"] = .string(replaced) }
                print(AdminOutput.json(out))
            } else {
                print(restore ? "restored \(database) from \(file) (\(size) MiB)" : "backed up \(database) to \(file) (\(size) MiB)")
                if let replaced = copy.replaced {
                    print("the database it replaced is kept as \(replaced) until a server next starts on \(database)")
                }
            }
            return 0
        } catch {
            Output.error("authsh admin: \(error.description)")
            return ExitStatus.failure
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
        case factors(String), removeTOTP(String)
        case confirm(String)
        case export(String)
        case `import`(String, check: Bool)
        case importFirebase(String, hashConfig: String?, check: Bool)
        case importForeign(ForeignExport, String, passwords: String?, check: Bool)

        /// An import may fill a new database; every other command needs one that exists.
        var createsDatabase: Bool {
            switch self {
            case .import, .importFirebase, .importForeign: true
            default: false
            }
        }

        func run(_ client: AdminClient, _ o: Options) async throws {
            switch self {
            case .list:
                var filters = o.filters
                repeat {
                    let page = try await client.listUsers(filters)
                    for user in page.users { print(o.json ? AdminOutput.json(value: user) : AdminOutput.line(user)) }
                    filters["cursor"] = page.next
                } while o.all && filters["cursor"] != nil
            case .show(let id):
                let user = try await client.user(id)
                print(o.json ? AdminOutput.json(value: user) : AdminOutput.details(user))
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
                print(
                    o.json ? AdminOutput.json(["id": .string(id), "revoked": .int64(Int64(n))]) : "revoked \(n) session\(n == 1 ? "" : "s") of \(id)")
            case .factors(let id):
                let factors = try await client.secondFactors(id)
                if o.json {
                    print(AdminOutput.json(value: factors))
                } else {
                    let list = factors["factors"]?.arrayValue ?? []
                    for f in list {
                        print("\(f["type"]?.stringValue ?? "?")  \(f["confirmed"] == true ? "confirmed" : "being enrolled")")
                    }
                    if list.isEmpty { print("no second factor") }
                    print("recovery codes left: \(factors["recoveryCodes"]?.integerValue ?? 0)")
                }
            case .removeTOTP(let id):
                try await client.removeTOTP(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "removed": "totp"]) : "removed the TOTP factor of \(id)")
            case .reset(let id):
                try await client.sendReset(id)
                print(o.json ? AdminOutput.json(["id": .string(id), "sent": true]) : "sent the reset mail of \(id)")
            case .export(let path):
                let progress = TransferProgress()
                let result = try await client.export(to: path) { progress.show($0) }
                progress.finish()
                let message = "exported \(result.users) users and \(result.accounts) accounts without a user to \(path)"
                if path == "-" {
                    Output.error(message)
                } else {
                    print(o.json ? AdminOutput.json(["users": .int64(Int64(result.users)), "accounts": .int64(Int64(result.accounts))]) : message)
                }
            case .import(let path, let check):
                let progress = TransferProgress()
                do {
                    let report = try await client.importFile(path, continueOnError: o.continueOnError, check: check) { progress.show($0) }
                    progress.finish()
                    if o.json {
                        print(AdminOutput.json(value: report))
                    } else {
                        print(
                            "\(check ? "would import" : "imported") \(report["imported"]?.integerValue ?? 0), skipped \(report["skipped"]?.integerValue ?? 0) (there already), rejected \(report["rejectedCount"]?.integerValue ?? 0)"
                        )
                        for r in report["rejected"]?.arrayValue ?? [] {
                            print("  line \(r["line"]?.integerValue ?? 0): \(TerminalText.safe(r["reason"]?.stringValue ?? ""))")
                        }
                    }
                    let rejected = report["rejectedCount"]?.integerValue ?? 0
                    if check, rejected > 0 { throw AdminTarget.AdminError("\(rejected) line\(rejected == 1 ? "" : "s") rejected") }
                } catch let error as AuthClientError where !error.details.isEmpty {
                    progress.finish()
                    for r in EJSON.document(error.details)["rejected"]?.arrayValue ?? [] {
                        Output.error("  line \(r["line"]?.integerValue ?? 0): \(r["reason"]?.stringValue ?? "")")
                    }
                    throw error
                }
            case .importFirebase(let path, let hashConfig, let check):
                var hash: EJSONDocument = [:]
                if let hashConfig {
                    guard let text = Files.read(hashConfig) else { throw AdminTarget.AdminError("cannot read \(hashConfig)") }
                    hash = try FirebaseExportImport.hashFields(String(decoding: text, as: UTF8.self))
                }
                let progress = TransferProgress()
                let done = try await FirebaseExportImport.run(client, path: path, hash: hash, check: check) { progress.show($0) }
                progress.finish()
                if o.json {
                    print(
                        AdminOutput.json([
                            "imported": .int64(Int64(done.imported)), "skipped": .int64(Int64(done.skipped)), "checked": .bool(check),
                            "rejected": .array(done.rejected.map { ["user": .int64(Int64($0.index)), "reason": .string($0.reason)] }),
                        ]))
                } else {
                    print(
                        "\(check ? "would import" : "imported") \(done.imported), skipped \(done.skipped) (there already), rejected \(done.rejected.count)"
                    )
                    for r in done.rejected.prefix(100) { print("  user \(r.index): \(TerminalText.safe(r.reason))") }
                }
                if !done.rejected.isEmpty {
                    throw AdminTarget.AdminError("\(done.rejected.count) user\(done.rejected.count == 1 ? "" : "s") rejected")
                }
            case .importForeign(let format, let path, let passwords, let check):
                try await importForeign(client, o, format, path: path, passwords: passwords, check: check)
            case .confirm(let email):
                try await client.confirm(email: email)
                print(o.json ? AdminOutput.json(["email": .string(email), "confirmed": true]) : "confirmed \(email)")
            }
        }
    }
}
