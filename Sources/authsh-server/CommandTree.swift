// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The server's commands, `serve`, `admin` and `audit`, as one swift-argument-parser tree
/// under `authsh`: they are parsed through it, so that their help and errors name them as
/// `authsh` does (`authsh serve`, `authsh admin users list`).
struct CommandTree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authsh", subcommands: [ServeCommand.self, AdminCommand.self, AuditCommand.self])

    /// The tree's path to `command`, or nil for a command outside it (`embedded`).
    static func name<Command: ParsableCommand>(of command: Command.Type) -> String? {
        configuration.subcommands.contains { $0 == command } ? command.configuration.commandName : nil
    }
}

/// `authsh` and all its subcommands as one swift-argument-parser tree, from which the man pages
/// and the shell completions are generated (`authsh-server --experimental-dump-help`,
/// `--generate-completion-script SHELL`; scripts/package).
///
/// The top level keeps Lua's command line, which `authsh` parses itself (`-e CHUNK` repeated and
/// ordered, `-` for standard input, everything after the script passed to it), and so does
/// `authsh test`, which busted's options shape: the tree declares their options for the manual
/// and the completions only. `CommandTreeTests` checks them against `authsh --help` and
/// `authsh test --help`, so the two cannot drift apart.
struct CommandLineReference: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authsh",
        abstract: "A Lua scripting host for authentication flows.",
        usage: "authsh [options] [script [args]]",
        discussion: """
            With no script and standard input a terminal, a REPL; with a script, runs it; `-` runs
            standard input. With no --server, authsh starts its own auth server (dev mode,
            127.0.0.1, an ephemeral port) the first time a script makes a request, and stops it
            when it exits. The globals are app, credentials, auth, and the verbs login, signIn,
            linkIdentity, register, confirm, resetPassword, callResetFunction, switchUser, logout,
            whoami, users, outbox.

            Environment: AUTHSH_SERVER and AUTHSH_APP (as --server and --app), AUTHSH_DATA (the
            data directory), NO_COLOR, AUTHSH_ERROR_REQUEST=1 (auth errors name the request).
            Exit status: 0, 1 for a Lua error, 64 for bad usage, or the value given to os.exit.
            """,
        subcommands: [ServeCommand.self, AdminCommand.self, AuditCommand.self, TestCommandLine.self])

    @Option(name: .customShort("e"), help: ArgumentHelp("Execute the string (repeatable; runs before the script).", valueName: "chunk"))
    var chunks: [String] = []

    @Option(name: .customShort("l"), help: ArgumentHelp("Require library NAME into global NAME.", valueName: "name"))
    var libraries: [String] = []

    @Flag(name: .customShort("i"), help: "Enter the REPL after running the script.")
    var interactive = false

    @Flag(name: .customShort("E"), help: "Ignore LUA_INIT, LUA_PATH and LUA_CPATH.")
    var ignoreEnvironment = false

    // A flag of its own, not the configuration's `version`, which every subcommand would inherit.
    @Flag(name: [.customShort("v"), .customLong("version")], help: "Print the version.")
    var printVersion = false

    @Option(help: ArgumentHelp("Talk to the server at URL instead of the embedded one.", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The app to use (default: local).", valueName: "id"))
    var app: String?

    @Option(
        help: ArgumentHelp(
            "Speak Firebase Auth's API as this project: to the embedded server (its app is then the project), --server, or --emulator.",
            valueName: "project"))
    var firebase: String?

    @Option(name: .customLong("api-key"), help: ArgumentHelp("The Firebase project's Web API key (an emulator takes any).", valueName: "key"))
    var apiKey: String?

    @Option(help: ArgumentHelp("The Firebase Auth emulator to talk to (with --firebase).", valueName: "host:port"))
    var emulator: String?

    @Option(
        help: ArgumentHelp(
            "Where authsh keeps its data (default $AUTHSH_DATA, else $XDG_DATA_HOME/authsh, else ~/.local/share/authsh).",
            valueName: "dir"),
        completion: .directory)
    var data: String?

    @Option(help: ArgumentHelp("The embedded server's Lua plugins (default: ./plugins, if it exists).", valueName: "dir"), completion: .directory)
    var plugins: String?

    @Flag(help: "print writes tables as JSON.")
    var json = false

    // No `script` argument: in swift-argument-parser's completions a positional argument of the
    // top level hides its subcommands. The bash completion falls back to file names instead
    // (scripts/package), and the usage line names the script.
}

/// `authsh test`, declared for the manual and the completions (the `authsh` binary parses it).
struct TestCommandLine: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run busted spec files, each against a fresh embedded server.",
        usage: "authsh test [options] [PATH...]",
        discussion: """
            Finds *_spec.lua files under spec/ and in the current directory, or under the PATHs, and
            runs each in its own authsh process with a fresh data directory and embedded server.
            Exit status: 0 when every test passed, 1 when one failed or no spec file was found, 64
            for bad usage.
            """)

    @Option(name: [.customShort("j"), .customLong("jobs")], help: ArgumentHelp("Run N files at once (default: the cores).", valueName: "n"))
    var jobs: Int?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("utfTerminal, plainTerminal, junit, tap or json.", valueName: "format"),
        completion: .list(["utfTerminal", "plainTerminal", "junit", "tap", "json"]))
    var output: String?

    @Option(
        name: [.customShort("p"), .customLong("pattern")],
        help: ArgumentHelp("Only files whose name matches this Lua pattern (default _spec).", valueName: "pattern"))
    var pattern: String?

    @Option(help: ArgumentHelp("Only tests whose name matches.", valueName: "pattern"))
    var filter: String?

    @Option(name: .customLong("filter-out"), help: ArgumentHelp("No test whose name matches.", valueName: "pattern"))
    var filterOut: String?

    @Option(name: [.customShort("t"), .customLong("tags")], help: ArgumentHelp("Only tests with these tags (comma-separated).", valueName: "tags"))
    var tags: String?

    @Option(name: .customLong("exclude-tags"), help: ArgumentHelp("No test with these tags.", valueName: "tags"))
    var excludeTags: String?

    @Option(help: ArgumentHelp("Run every file against this server (no isolation then).", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The embedded servers' plugins.", valueName: "dir"), completion: .directory)
    var plugins: String?

    @Option(help: ArgumentHelp("The default app's id.", valueName: "id"))
    var app: String?

    @Option(help: ArgumentHelp("Speak Firebase Auth's API as this project (each embedded server's app is then the project).", valueName: "project"))
    var firebase: String?

    @Option(name: .customLong("api-key"), help: ArgumentHelp("The Firebase project's Web API key.", valueName: "key"))
    var apiKey: String?

    @Option(help: ArgumentHelp("The Firebase Auth emulator to run every file against.", valueName: "host:port"))
    var emulator: String?

    @Argument(help: "Spec files or directories.", completion: .file())
    var paths: [String] = []
}
