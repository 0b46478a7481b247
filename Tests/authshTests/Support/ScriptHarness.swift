// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

extension Binary {
    /// The repository (the example plugins and recipes live there).
    static let repository = productsDirectory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Runs Lua `source` as a script file with `authsh --data DATA --plugins REPO/plugins`,
    /// against the embedded server; `options` go before the script, `arguments` after.
    static func script(_ source: String, data: String, options: [String] = [], arguments: [String] = []) async throws -> Result {
        let dir = try temporaryDirectory()
        try write(source, to: dir + "/scenario.lua")
        return try await run(
            ["--data", data, "--plugins", repository + "/plugins"] + options + [dir + "/scenario.lua"] + arguments,
            directory: dir)
    }
}

/// `authsh serve` as a child process on an ephemeral port, stopped when released.
final class ServerProcess {
    let process: ChildProcess
    let directory: String
    let origin: String

    /// Starts `authsh serve --port 0 --data TMP/data ARGS` (with `--plugins REPO/plugins`
    /// unless `examplePlugins` is false), its standard output in `TMP/out` and its log in
    /// `TMP/err`, and waits for its `listening on` line.
    init(_ arguments: [String], examplePlugins: Bool = true) async throws {
        directory = try Binary.temporaryDirectory()
        let process = try ChildProcess(
            [Binary.path, "serve", "--port", "0", "--data", directory + "/data"]
                + (examplePlugins ? ["--plugins", Binary.repository + "/plugins"] : []) + arguments,
            output: directory + "/out", errors: directory + "/err")
        self.process = process
        do {
            origin = try await process.waitForOutput(timeout: .seconds(30)) { Self.listeningOrigin(in: $0) }
        } catch {
            process.stop()
            throw TerminalError(message: "authsh serve did not start: \((try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? "")")
        }
    }

    deinit {
        // A server that does not finish its graceful shutdown must not hold the tests for ever:
        // after 30 s it is killed (and the test that stopped it has said what went wrong).
        process.terminate(grace: .seconds(30))
    }

    /// `authsh serve --port 0 ARGS`, its output and log in the file `log`, and its origin once
    /// it listens; the caller stops it.
    static func spawn(_ arguments: [String], log: String) async throws -> (process: ChildProcess, origin: String) {
        let process = try ChildProcess([Binary.path, "serve", "--port", "0"] + arguments, output: log)
        do {
            return (process, try await process.waitForOutput(timeout: .seconds(30)) { listeningOrigin(in: $0) })
        } catch {
            process.stop()
            throw TerminalError(message: "authsh serve did not start: \(process.outputText())")
        }
    }

    /// The origin of the `listening on ORIGIN` line `authsh serve` prints once it accepts
    /// connections, when `text` has it whole.
    static func listeningOrigin(in text: String) -> String? {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .first { $0.hasPrefix("listening on ") }.map { String($0.dropFirst("listening on ".count)) }
    }
}
