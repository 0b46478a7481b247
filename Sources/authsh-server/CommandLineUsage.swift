import ArgumentParser
import CommandSupport

/// How the subcommands built on swift-argument-parser (`serve`, `audit`, `admin`, `embedded`) answer their command
/// line: `--help` on stdout with exit 0; anything wrong as `authsh NAME: message` and the
/// usage on stderr, exit 64 (sysexits' EX_USAGE, as for the top level).
enum CommandLineUsage {
    /// Parses `args` as `Command` and runs `body` with it; a parse error or `--help` is answered
    /// by ``report(_:of:)`` instead, whose status is returned.
    static func run<Command: ParsableCommand>(_ type: Command.Type, _ args: [String], _ body: (Command) -> Int32) -> Int32 {
        let command: Command
        do {
            command = try type.parse(args)
        } catch {
            return report(error, of: type)
        }
        return body(command)
    }

    static func report<Command: ParsableCommand>(_ error: any Error, of command: Command.Type) -> Int32 {
        if command.exitCode(for: error) == .success {
            // The screen of the command asked about (`admin users list --help`: that one's).
            print(command.fullMessage(for: error, columns: 100))
            return 0
        }
        let name = command.configuration.commandName ?? "authsh"
        let usage = (command.configuration.usage ?? "").split(separator: "\n").joined(separator: "\n       ")
        Output.error("\(name): \(command.message(for: error))\nusage: \(usage)")
        return ExitStatus.usage
    }
}
