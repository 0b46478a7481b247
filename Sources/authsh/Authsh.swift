import Glibc
import Lua

/// The `authsh` command: lua's command line (`-e`, `-l`, `-i`, `-`, script and args), a REPL
/// when stdin is a terminal, and authsh's own options.
enum Authsh {
    static let version = "0.1.0"

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
        if invocation.showVersion { print(Help.versionLine) }

        let session: Session
        do {
            session = try Session(dataDirectory: invocation.dataDirectory, libraries: [TasksLibrary()])
            try session.setArguments(invocation.argTable, scriptIndex: invocation.scriptIndex)
        } catch {
            Output.error("authsh: \(error)")
            return ExitStatus.failure
        }

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
            return REPL(session: session).run()
        }
        if !ranSomething {  // stdin is not a terminal: run it as a script, as lua does
            return session.execute(Files.readStandardInput(), name: "=stdin") ? 0 : ExitStatus.failure
        }
        return 0
    }
}

/// Exit statuses (sysexits for usage).
enum ExitStatus {
    static let failure: Int32 = 1
    static let usage: Int32 = 64
}

/// The scheduler's primitives as `auth.spawn`, `auth.wait`, `auth.sleep`.
struct TasksLibrary: LuaLibrary {
    func install(into state: LuaState) throws {
        for function in LuaTasks.all { try state.setField(function.name, of: "auth", to: .function(function)) }
    }
}
