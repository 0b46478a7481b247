// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import AuthProtocol
import AuthServer

/// `authsh admin`: administer users through a server's admin API or directly on its database.
/// Its command line is a swift-argument-parser command tree: the options that say where
/// (`--server`, `--data`, ...) come before the command, the command's own after it.
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer a server's users.",
        usage: """
            authsh admin [--server URL [--allow-http] | --data DIR | --database URL] [--config FILE] [--app ID] [--json] COMMAND
              users list [--email PREFIX] [--provider TYPE] [--state enabled|disabled] [--created-after T]
                         [--created-before T] [--last-login-after T] [--last-login-before T] [--limit N] [--all]
              users show ID
              users disable ID | users enable ID | users delete ID | users revoke ID
              users reset ID          send the user's reset mail
              users confirm EMAIL     confirm a pending email/password account
              export FILE             every user, as NDJSON (FILE - for standard output)
              import FILE [--continue-on-error] [--check]
                     [--from authsh|firebase|keycloak|supabase|auth0|cognito] [--hash-config FILE] [--passwords FILE]
              backup FILE             a consistent copy of a live SQLite database (FILE must be new)
              restore FILE            a backup in place of a stopped server's SQLite database
            """,
        discussion: """
            With --server, the server's admin API, with the key in AUTHSH_ADMIN_KEY (the server's
            config lists it under adminKeys); an http:// URL must name this machine (the key would
            cross the network in clear) unless --allow-http. Otherwise the database itself: --data DIR (default as
            for `authsh serve`), --database URL, or the database of --config FILE (whose apps are
            then the ones known); the audit log names the actor admin:authsh-admin.

            `export` writes one JSON object per user (identities, profile and custom data, state,
            password hashes as they are), made 0600 and renamed into place only once complete.
            `import` checks every line before writing any: a rejected line (named with its number
            and reason) imports nothing unless --continue-on-error. Users whose id, and accounts
            whose email, the app has already are skipped, so importing twice changes nothing.
            Argon2id and bcrypt hashes are kept; bcrypt ones become Argon2id at the next login.
            --from reads another system's export (see Moving in): firebase (auth:export's JSON or
            CSV, with --hash-config), keycloak (a realm export), supabase (auth.users rows with their
            identities, one JSON object a line), auth0 (the bulk export's JSON lines, with
            --passwords, the hashes file of Auth0's support) or cognito (list-users' JSON; no
            hashes: its users set a password through the reset flow). Other passwords keep their
            hashes, each verified at its first login and then replaced by Argon2id.

            `backup` copies the SQLite database of --data, --database sqlite:PATH or --config with
            SQLite's online backup, while a server serves and writes: the copy is the database as
            it was at one moment, checked, flushed and made 0600 before it gets its name. For
            PostgreSQL, use pg_dump (see Administering users). `restore` puts a backup in place of
            the database (creating it, and the data directory, when missing), and refuses while a
            server or another authsh command has that database open.

            T is unix seconds, an ISO-8601 time, or 30m, 2h, 7d (that long ago). `users list` prints
            one page (--limit, default 50; --all for every page); --json prints one JSON object per
            user per line (and the user for `show`).
            """,
        subcommands: [Users.self, Export.self, Import.self, Backup.self, Restore.self])

    @Option(help: ArgumentHelp("A server's URL: act through its admin API (key in AUTHSH_ADMIN_KEY).", valueName: "url"))
    var server: String?

    @Flag(name: .customLong("allow-http"), help: "Send the admin key to an http:// server that is not this machine (readable on the way).")
    var allowHTTP = false

    /// Without --server: the database acted on directly.
    @OptionGroup var place: DatabaseOptions

    @Option(help: ArgumentHelp("The app.", valueName: "id"))
    var app = "local"

    @Flag(help: "JSON output: a line per user.")
    var json = false

    func validate() throws {
        if let server, !(server.hasPrefix("http://") || server.hasPrefix("https://")) {
            throw ValidationError("--server needs an http(s):// URL")
        }
        if let server, !allowHTTP, let problem = Loopback.cleartextProblem(url: server) {
            throw ValidationError("--server: \(problem), and the admin key would be sent in clear: use https://, or --allow-http to send it anyway")
        }
        guard !app.isEmpty else { throw ValidationError("--app needs an app id") }
    }

    /// `users ...`
    struct Users: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, show and change users.",
            subcommands: [
                List.self, Show.self, Disable.self, Enable.self, Delete.self, Revoke.self, Reset.self, Factors.self, RemoveTOTP.self,
                Confirm.self,
            ])
    }

    /// A user's id, the argument of most `users` commands.
    struct UserID: ParsableArguments {
        @Argument(help: "The user's id.") var id: String
    }

    struct List: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "One page of users (or every page with --all).")
        @ParentCommand var admin: AdminCommand
        @Option(help: ArgumentHelp("Users with an email starting so.", valueName: "prefix")) var email: String?
        @Option(help: ArgumentHelp("Users with an identity of this provider type.", valueName: "type")) var provider: String?
        @Option(help: ArgumentHelp("enabled or disabled.", valueName: "state")) var state: String?
        @Option(help: ArgumentHelp("Created after T.", valueName: "t")) var createdAfter: String?
        @Option(help: ArgumentHelp("Created before T.", valueName: "t")) var createdBefore: String?
        @Option(help: ArgumentHelp("Last logged in after T.", valueName: "t")) var lastLoginAfter: String?
        @Option(help: ArgumentHelp("Last logged in before T.", valueName: "t")) var lastLoginBefore: String?
        @Option(help: ArgumentHelp("Users a page (1 to 1000; default 50).", valueName: "n")) var limit: String?
        @Flag(help: "Every page.") var all = false

        func validate() throws {
            for (name, value) in [
                ("--created-after", createdAfter), ("--created-before", createdBefore),
                ("--last-login-after", lastLoginAfter), ("--last-login-before", lastLoginBefore),
            ] {
                if let value, Admin.time(value) == nil {
                    throw ValidationError("\(name) needs unix seconds, an ISO-8601 time, or 30m, 2h, 7d")
                }
            }
        }

        var command: Admin.Command { .list }
        var filters: [String: String] {
            var f: [String: String] = [:]
            for (key, value) in [("email", email), ("provider", provider), ("state", state), ("limit", limit)] { f[key] = value }
            for (key, value) in [
                ("createdAfter", createdAfter), ("createdBefore", createdBefore),
                ("lastLoginAfter", lastLoginAfter), ("lastLoginBefore", lastLoginBefore),
            ] {
                f[key] = value.flatMap(Admin.time).map(String.init)
            }
            return f
        }
    }

    struct Show: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "A user: identities, sessions, API key names, custom data, audit events.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .show(user.id) }
    }

    struct Disable: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "A disabled user cannot log in or use its tokens.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .disable(user.id) }
    }

    struct Enable: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Undoes disable.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .enable(user.id) }
    }

    struct Delete: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "The user, its identities, sessions, API keys and account.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .delete(user.id) }
    }

    struct Revoke: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Ends every session of the user.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .revoke(user.id) }
    }

    struct Reset: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Sends the user's reset mail.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .reset(user.id) }
    }

    struct Factors: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Lists the user's second factors and unused recovery codes.")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .factors(user.id) }
    }

    struct RemoveTOTP: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(
            commandName: "remove-totp", abstract: "Removes the user's TOTP factor and recovery codes (a lost authenticator).")
        @ParentCommand var admin: AdminCommand
        @OptionGroup var user: UserID
        var command: Admin.Command { .removeTOTP(user.id) }
    }

    struct Confirm: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Confirms a pending email/password account.")
        @ParentCommand var admin: AdminCommand
        @Argument(help: "The account's email.") var email: String
        var command: Admin.Command { .confirm(email) }
    }

    struct Export: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Every user, as NDJSON (FILE - for standard output).")
        @ParentCommand var admin: AdminCommand
        @Argument(help: "Where to write it.") var file: String
        var command: Admin.Command { .export(file) }
    }

    struct Import: ParsableCommand, AdminLeaf {
        static let configuration = CommandConfiguration(abstract: "Users from an export (checked whole before any is written).")
        @ParentCommand var admin: AdminCommand
        @Argument(help: "The export: authsh's NDJSON, or another system's (--from).") var file: String
        @Flag(help: "Import the lines that pass, and report the others.") var continueOnError = false
        @Option(help: "The export's format: authsh (default), firebase, keycloak, supabase, auth0 or cognito.") var from: String = "authsh"
        @Option(help: "With --from firebase: the file holding the project's hash_config { ... } block, as the Firebase console shows it.")
        var hashConfig: String?
        @Option(help: "With --from auth0: the password hashes file Auth0's support sends (JSON lines).") var passwords: String?
        @Flag(help: "Check every user as the import would, and write nothing.") var check = false

        func validate() throws {
            let formats = ["authsh", "firebase"] + ForeignExport.allCases.map(\.rawValue)
            guard formats.contains(from) else {
                throw ValidationError("--from takes \(formats.joined(separator: ", ")), not '\(from)'")
            }
            if from != "firebase", hashConfig != nil { throw ValidationError("--hash-config goes with --from firebase") }
            if from != "auth0", passwords != nil { throw ValidationError("--passwords goes with --from auth0") }
        }

        var command: Admin.Command {
            if let format = ForeignExport(rawValue: from) { return .importForeign(format, file, passwords: passwords, check: check) }
            return from == "firebase" ? .importFirebase(file, hashConfig: hashConfig, check: check) : .import(file, check: check)
        }
    }
}

extension AdminCommand {
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A consistent copy of a live SQLite database (FILE must be new).")
        @ParentCommand var admin: AdminCommand
        @Argument(help: "The file to write.") var file: String
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A backup in place of a stopped server's SQLite database.")
        @ParentCommand var admin: AdminCommand
        @Argument(help: "The backup file.") var file: String
    }
}

/// A command of the tree that does something: where (its `admin` parent) and what.
protocol AdminLeaf {
    var admin: AdminCommand { get }
    var command: Admin.Command { get }
}
