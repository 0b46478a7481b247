// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import AuthProtocol
import AuthServer
import CommandSupport
import Glibc
import Logging

/// `authsh-server embedded --data DIR [--plugins DIR]`: the dev server `authsh` starts for its
/// scripts (authsh's `EmbeddedServer` is the other side, and says what the two say to each
/// other). Dev mode on 127.0.0.1, an ephemeral port, the `local` app with one account per
/// email, and the admin API open to the key read from standard input.
struct EmbeddedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authsh-server embedded",
        abstract: "The dev server authsh starts for its scripts (not meant to be run by hand).")

    @Option(name: .long, help: "The server's data directory.")
    var data: String

    @Option(name: .long, help: "The plugins directory.")
    var plugins: String?

    @Option(name: .long, help: "The playground app's id (default: local; authsh --firebase names the project).")
    var app: String?
}

enum Embedded {
    /// How long the server may take to stop once `authsh` has gone.
    static let stopSeconds: UInt32 = 5

    static func main(_ args: [String]) -> Int32 { CommandLineUsage.run(EmbeddedCommand.self, args, serve) }

    /// Reads the admin key, starts the server, answers its origin, and serves until stdin ends.
    private static func serve(_ command: EmbeddedCommand) -> Int32 {
        // The terminal's signals are authsh's (Ctrl-C interrupts a script, not its server):
        // authsh spawns this process with them blocked, and they stay ignored here.
        for signal in [SIGINT, SIGQUIT, SIGTSTP] { Glibc.signal(signal, SIG_IGN) }
        guard case .line(let key) = LineReader.readLine(0) else {
            say("error: no admin key on standard input")
            return ExitStatus.failure
        }
        var config = ServerConfiguration()
        do {
            config.adminKeys = try AdminKeys([(name: "embedded", key: key)])
        } catch {
            say("error: \(error)")
            return ExitStatus.failure
        }
        config.dev = true
        config.host = "127.0.0.1"
        config.port = 0
        // The playground's `local` app keeps one account per email
        // (docs/protocol/identity-providers.md section 5).
        config.apps = config.apps.map {
            var app = $0
            app.oneAccountPerEmail = true
            if let id = command.app { app.id = id }
            return app
        }
        config.database = .directory(command.data)
        if let plugins = command.plugins {
            config.pluginsDirectory = plugins
            config.pluginsDirectoryRequired = true
        }
        var logger = Logger(label: "authsh.embedded", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        config.logger = logger
        let finalConfig = config
        stopWhenAuthshEnds()
        return Serve.runBlocking {
            do {
                let app = try await buildApplication(finalConfig) { _, port in
                    say("http://127.0.0.1:\(port)")
                    // Nothing else goes to authsh, which has stopped reading.
                    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
                    if null >= 0 { dup2(null, 1); close(null) }
                }
                try await app.runService(gracefulShutdownSignals: [.sigterm])
                return 0
            } catch {
                say("error: \(error)")
                return ExitStatus.failure
            }
        }
    }

    /// Once standard input ends (authsh has exited, however it ended), stops the server as
    /// SIGTERM does, and ends the process if that takes longer than `stopSeconds`.
    private static func stopWhenAuthshEnds() {
        BlockingThread.detach {  // not on one of the threads async code shares
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let n = read(0, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
            }
            kill(getpid(), SIGTERM)
            sleep(stopSeconds)
            _exit(0)
        }
    }

    /// One line on standard output, at once.
    private static func say(_ line: String) {
        Output.write(1, line + "\n")
    }
}
