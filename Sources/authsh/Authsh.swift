// SPDX-License-Identifier: Apache-2.0
import AuthScript
import CommandSupport
import Glibc
import Lua

/// The `authsh` command: lua's command line (`-e`, `-l`, `-i`, `-`, script and args), a REPL
/// when stdin is a terminal, and authsh's own options.
enum Authsh {
    static let version = Version.number

    /// Runs the command; returns the process exit status.
    static func main(_ argv: [String]) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(argv)
        } catch {
            Output.error("authsh: \(error.message)\n\(Help.usage)")
            return ExitStatus.usage
        }
        if invocation.showHelp {
            print(Help.text)
            return 0
        }
        if invocation.showVersion { print(Help.versionLine + ", " + Version.commit) }

        let dataDirectory = invocation.dataDirectory ?? Paths.defaultDataDirectory()
        let configuration: AuthScript.Configuration
        do {
            configuration = try scriptConfiguration(invocation, dataDirectory: dataDirectory)
        } catch {
            Output.error("authsh: \(error.message)\n\(Help.usage)")
            return ExitStatus.usage
        }
        if Paths.environment("AUTHSH_ERROR_REQUEST") == "1" { AuthErrorObject.namesRequests.store(true, ordering: .relaxed) }
        let bindings = AuthScript(configuration)
        let session: Session
        do {
            session = try Session(dataDirectory: dataDirectory, libraries: [bindings], ignoringEnvironment: invocation.ignoreEnvironment)
            try session.setArguments(invocation.argTable, scriptIndex: invocation.scriptIndex)
            if invocation.json { try session.printTablesAsJSON() }
        } catch {
            Output.error("authsh: \(error)")
            return ExitStatus.failure
        }
        if !invocation.ignoreEnvironment && !runInit(session) { return ExitStatus.failure }

        for action in invocation.actions {
            let ok: Bool
            switch action {
            case .execute(let chunk): ok = session.execute(Array(chunk.utf8), name: "=(command line)")
            case .require(let module): ok = session.require(module)
            }
            if !ok { return ExitStatus.failure }
        }

        switch invocation.script {
        case .file(let path):
            guard let source = Files.read(path) else {
                Output.error("authsh: cannot open \(path) (\(String(cString: strerror(errno))))")
                return ExitStatus.failure
            }
            if !session.execute(Files.skippingShebang(source), name: "@" + path, arguments: invocation.scriptArguments) {
                return ExitStatus.failure
            }
        case .standardInput:
            if !session.execute(Files.readStandardInput(), name: "=stdin", arguments: invocation.scriptArguments) {
                return ExitStatus.failure
            }
        case nil:
            break
        }

        let ranSomething = invocation.script != nil || !invocation.actions.isEmpty || invocation.showVersion
        if invocation.interactive || (!ranSomething && isatty(0) != 0) {
            if !invocation.interactive && !invocation.showVersion { print(Help.versionLine) }
            print(banner(bindings, dataDirectory: dataDirectory))
            return REPL(session: session, bindings: bindings).run()
        }
        if !ranSomething {  // stdin is not a terminal: run it as a script, as lua does
            return session.execute(Files.readStandardInput(), name: "=stdin") ? 0 : ExitStatus.failure
        }
        return 0
    }
}

extension Authsh {
    /// The default app: `--server`/`--app` (or AUTHSH_SERVER/AUTHSH_APP), else the embedded
    /// server's `local` app. (`--server` was checked when parsed; AUTHSH_SERVER is here.)
    static func scriptConfiguration(_ invocation: Invocation, dataDirectory: String) throws(UsageError) -> AuthScript.Configuration {
        let appId = invocation.firebase ?? invocation.appId ?? Paths.environment("AUTHSH_APP") ?? "local"
        let server: ScriptServer
        if let emulator = invocation.emulator {
            server = ScriptServer(url: emulator.contains("://") ? emulator : "http://" + emulator)
        } else if let url = invocation.server ?? Paths.environment("AUTHSH_SERVER") {
            if let problem = ScriptServer.problem(with: url) { throw UsageError("AUTHSH_SERVER: \(problem)") }
            server = ScriptServer(url: url)
        } else {
            // The embedded server's playground app is the default app (with --firebase, the
            // project: any API key then reaches it, as any reaches the emulator's one project).
            let key = EmbeddedServer.AdminKey(), child = EmbeddedServer.Child()
            let start = EmbeddedServer.starter(
                dataDirectory: dataDirectory, plugins: invocation.plugins, appId: invocation.firebase, adminKey: key, child: child)
            server = ScriptServer(embedded: start, adminKey: { key.value }, isRunning: { child.isRunning })
        }
        var configuration = AuthScript.Configuration(appId: appId, server: server, dataDirectory: dataDirectory)
        if let project = invocation.firebase {
            configuration.speakFirebase(project: project, apiKey: invocation.apiKey)
        }
        return configuration
    }

    /// LUA_INIT_5_4, else LUA_INIT, as lua.c runs it before any option: `@FILE` runs that
    /// file, anything else is a chunk. False (after reporting it) when it fails.
    static func runInit(_ session: Session) -> Bool {
        let (name, value): (String, String)
        if let v = getenv("LUA_INIT_5_4") {
            (name, value) = ("=LUA_INIT_5_4", String(cString: v))
        } else if let v = getenv("LUA_INIT") {
            (name, value) = ("=LUA_INIT", String(cString: v))
        } else {
            return true
        }
        guard value.hasPrefix("@") else { return session.execute(Array(value.utf8), name: name) }
        let path = String(value.dropFirst())
        guard let source = Files.read(path) else {
            Output.error("authsh: cannot open \(path) (\(String(cString: strerror(errno))))")
            return false
        }
        return session.execute(Files.skippingShebang(source), name: "@" + path)
    }

    /// The REPL's one-line banner: which server and app, where data lives.
    static func banner(_ bindings: AuthScript, dataDirectory: String) -> String {
        let server = bindings.configuration.server
        let place = server.isEmbedded ? "the embedded dev server (started on first use)" : server.baseURL
        let api = bindings.configuration.firebase == nil ? "" : " (Firebase Auth's API)"
        return "app \(bindings.app.id)\(api) on \(place); data in \(dataDirectory). Try login(credentials.anonymous()) or .help"
    }
}
