// SPDX-License-Identifier: Apache-2.0
import AuthScript

/// The command line, parsed the way `lua` parses its own, plus authsh's long options.
struct Invocation {
    enum Action: Equatable {
        case execute(String)  // -e CHUNK
        case require(String)  // -l NAME
    }

    enum Script: Equatable {
        case file(String)
        case standardInput  // `-`
    }

    var actions: [Action] = []
    var script: Script?
    var scriptArguments: [String] = []
    var interactive = false
    var showVersion = false
    var showHelp = false
    var dataDirectory: String?
    /// `--server URL`: talk to that server instead of the embedded one.
    var server: String?
    /// `--app ID`: the default app's id.
    var appId: String?
    /// `--firebase PROJECT`: the default app speaks Firebase Auth's API, as that project.
    var firebase: String?
    /// `--api-key KEY`: the Firebase project's Web API key.
    var apiKey: String?
    /// `--emulator HOST:PORT`: the Firebase Auth emulator to talk to.
    var emulator: String?
    /// `--plugins DIR`: the embedded server's plugins.
    var plugins: String?
    /// `--json`: `print` writes tables as JSON.
    var json = false
    /// `-E`: ignore LUA_INIT, LUA_PATH and LUA_CPATH (and their `_5_4` forms), as lua does.
    var ignoreEnvironment = false
    /// Every argument, for the global `arg` (the script at index 0, options before it negative).
    var argTable: [String] = []
    var scriptIndex = 0

    static func parse(_ argv: [String]) throws(UsageError) -> Invocation {
        var result = Invocation()
        result.argTable = argv
        var i = 1
        /// The value given inline (`--data=DIR`, `-eCHUNK`), if any.
        var inline: String?
        func value(for option: String) throws(UsageError) -> String {
            if let inline { return inline }
            i += 1
            guard i < argv.count else { throw UsageError("'\(option)' needs an argument") }
            return argv[i]
        }
        while i < argv.count {
            var option = argv[i]
            if option == "--" {
                i += 1
                break
            }
            if option == "-" || !option.hasPrefix("-") { break }
            inline = nil
            if option.hasPrefix("--"), let equals = option.firstIndex(of: "=") {
                inline = String(option[option.index(after: equals)...])
                option = String(option[..<equals])
            } else if !option.hasPrefix("--"), option.count > 2, option.hasPrefix("-e") || option.hasPrefix("-l") {
                inline = String(option.dropFirst(2))
                option = String(option.prefix(2))
            }
            switch option {
            case "-e": result.actions.append(.execute(try value(for: option)))
            case "-l": result.actions.append(.require(try value(for: option)))
            case "--data": result.dataDirectory = try value(for: option)
            case "--server": result.server = try value(for: option)
            case "--app": result.appId = try value(for: option)
            case "--firebase": result.firebase = try value(for: option)
            case "--api-key": result.apiKey = try value(for: option)
            case "--emulator": result.emulator = try value(for: option)
            case "--plugins": result.plugins = try value(for: option)
            case "-i" where inline == nil: result.interactive = true
            case "-v" where inline == nil, "--version" where inline == nil: result.showVersion = true
            case "-h" where inline == nil, "--help" where inline == nil: result.showHelp = true
            case "--json" where inline == nil: result.json = true
            case "-E" where inline == nil: result.ignoreEnvironment = true
            default: throw UsageError("unrecognized option '\(argv[i])'")
            }
            i += 1
        }
        if i < argv.count {
            result.script = argv[i] == "-" ? .standardInput : .file(argv[i])
            result.scriptIndex = i
            result.scriptArguments = Array(argv[(i + 1)...])
        }
        if let server = result.server, let problem = ScriptServer.problem(with: server) {
            throw UsageError("--server: \(problem)")
        }
        if result.appId?.isEmpty == true { throw UsageError("--app needs an app id") }
        if let project = result.firebase {
            guard !project.isEmpty, project.utf8.count <= 128, project.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "/") }) else {
                throw UsageError("--firebase needs a project id (1 to 128 printable characters, no /)")
            }
            if result.appId != nil { throw UsageError("--firebase names the app: leave out --app") }
        } else if result.apiKey != nil || result.emulator != nil {
            throw UsageError("--api-key and --emulator go with --firebase PROJECT")
        }
        if let emulator = result.emulator {
            if result.server != nil { throw UsageError("--emulator names the server: leave out --server") }
            if let problem = ScriptServer.problem(with: emulator.contains("://") ? emulator : "http://" + emulator) {
                throw UsageError("--emulator: \(problem)")
            }
        }
        return result
    }
}

/// Bad usage: exit 64 with the usage text.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
