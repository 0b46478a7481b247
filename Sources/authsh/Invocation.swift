/// The command line, parsed the way `lua` parses its own, plus authsh's long options.
struct Invocation {
    enum Action: Equatable {
        case execute(String)   // -e CHUNK
        case require(String)   // -l NAME
    }

    enum Script: Equatable {
        case file(String)
        case standardInput     // `-`
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
    /// `--plugins DIR`: the embedded server's plugins.
    var plugins: String?
    /// `--json`: `print` writes tables as JSON.
    var json = false
    /// Every argument, for the global `arg` (the script at index 0, options before it negative).
    var argTable: [String] = []
    var scriptIndex = 0

    static func parse(_ argv: [String]) throws(UsageError) -> Invocation {
        var result = Invocation()
        result.argTable = argv
        var i = 1
        func value(for option: String) throws(UsageError) -> String {
            i += 1
            guard i < argv.count else { throw UsageError("'\(option)' needs an argument") }
            return argv[i]
        }
        while i < argv.count {
            let argument = argv[i]
            if argument == "--" {
                i += 1
                break
            }
            if argument == "-" || !argument.hasPrefix("-") { break }
            switch argument {
            case "-e": result.actions.append(.execute(try value(for: "-e")))
            case "-l": result.actions.append(.require(try value(for: "-l")))
            case "-i": result.interactive = true
            case "-v", "--version": result.showVersion = true
            case "-h", "--help": result.showHelp = true
            case "--data": result.dataDirectory = try value(for: "--data")
            case "--server": result.server = try value(for: "--server")
            case "--app": result.appId = try value(for: "--app")
            case "--plugins": result.plugins = try value(for: "--plugins")
            case "--json": result.json = true
            default:
                if let (name, text) = Invocation.longOption(argument) {
                    switch name {
                    case "--data": result.dataDirectory = text
                    case "--server": result.server = text
                    case "--app": result.appId = text
                    case "--plugins": result.plugins = text
                    default: throw UsageError("unrecognized option '\(argument)'")
                    }
                } else if argument.hasPrefix("-e"), argument.count > 2 {
                    result.actions.append(.execute(String(argument.dropFirst(2))))
                } else if argument.hasPrefix("-l"), argument.count > 2 {
                    result.actions.append(.require(String(argument.dropFirst(2))))
                } else {
                    throw UsageError("unrecognized option '\(argument)'")
                }
            }
            i += 1
        }
        if i < argv.count {
            result.script = argv[i] == "-" ? .standardInput : .file(argv[i])
            result.scriptIndex = i
            result.scriptArguments = Array(argv[(i + 1)...])
        }
        if let server = result.server {
            guard server.hasPrefix("http://") || server.hasPrefix("https://") else {
                throw UsageError("--server needs an http:// or https:// URL, got '\(server)'")
            }
        }
        if result.appId?.isEmpty == true { throw UsageError("--app needs an app id") }
        return result
    }

    /// `--name=value` as (`--name`, value).
    private static func longOption(_ argument: String) -> (String, String)? {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return nil }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

/// Bad usage: exit 64 with the usage text.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
