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
            default:
                if argument.hasPrefix("--data=") {
                    result.dataDirectory = String(argument.dropFirst("--data=".count))
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
        return result
    }
}

/// Bad usage: exit 64 with the usage text.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
