// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CommandSupport

/// How the subcommands built on swift-argument-parser (`serve`, `audit`, `admin`, `embedded`) answer their command
/// line: `--help` on stdout with exit 0; anything wrong as `authsh NAME: message` and the
/// usage on stderr, exit 64 (sysexits' EX_USAGE, as for the top level).
enum CommandLineUsage {
    /// Parses `args` as `Command` and runs `body` with it; a parse error or `--help` is answered
    /// by ``report(_:of:)`` instead, whose status is returned.
    static func run<Command: ParsableCommand>(_ type: Command.Type, _ args: [String], _ body: (Command) -> Int32) -> Int32 {
        let parsed: any ParsableCommand
        do {
            parsed = try parse(type, args)
        } catch {
            return report(error, of: type)
        }
        guard let command = parsed as? Command else {
            // swift-argument-parser's own `help` subcommand: it prints the screen.
            var help = parsed
            do { try help.run() } catch { return report(error, of: type) }
            return 0
        }
        return body(command)
    }

    /// `args` parsed as `type`'s: through ``CommandTree`` for a command in it, so that its
    /// help and messages name it as `authsh` does.
    static func parse<Command: ParsableCommand>(_ type: Command.Type, _ args: [String]) throws -> any ParsableCommand {
        guard let name = CommandTree.name(of: type) else { return try type.parse(args) }
        return try CommandTree.parseAsRoot([name] + args)
    }

    static func report<Command: ParsableCommand>(_ error: any Error, of command: Command.Type) -> Int32 {
        // A command of the tree reads its errors through the tree, which knows its path.
        let inTree = CommandTree.name(of: command) != nil
        let parser: any ParsableCommand.Type = inTree ? CommandTree.self : command
        if parser.exitCode(for: error) == .success {
            // The screen of the command asked about (`admin users list --help`: that one's).
            print(parser.fullMessage(for: error, columns: 100))
            return 0
        }
        let name = (inTree ? "authsh " : "") + (command.configuration.commandName ?? "")
        let usage = (command.configuration.usage ?? "").split(separator: "\n").joined(separator: "\n       ")
        Output.error("\(name): \(parser.message(for: error))\nusage: \(usage)")
        return ExitStatus.usage
    }
}
