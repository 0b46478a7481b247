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
    let process = Process()
    let directory: String
    private(set) var origin = ""

    /// Starts `authsh serve --port 0 --data TMP/data ARGS` (with `--plugins REPO/plugins`
    /// unless `examplePlugins` is false) and waits for its `listening on` line.
    init(_ arguments: [String], examplePlugins: Bool = true) async throws {
        directory = try Binary.temporaryDirectory()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments =
            ["serve", "--port", "0", "--data", directory + "/data"]
            + (examplePlugins ? ["--plugins", Binary.repository + "/plugins"] : []) + arguments
        // Files, not pipes: a long-lived child must not hold pipe ends of other tests' children.
        _ = FileManager.default.createFile(atPath: directory + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: directory + "/err", contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/err"))
        process.standardInput = FileHandle.nullDevice
        let process = process
        try await Binary.offPool { try Binary.spawnLock.withLock { try process.run() } }
        for _ in 0..<1200 {
            if let origin = Self.listeningOrigin(in: (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? "") {
                self.origin = origin
                return
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        process.terminate()
        throw TerminalError(message: "authsh serve did not start: \((try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? "")")
    }

    deinit {
        guard process.isRunning else { return }
        process.terminate()
        // A server that does not finish its graceful shutdown must not hold the tests for ever:
        // after 30 s it is killed (and the test that stopped it has said what went wrong). The
        // wait is on a thread of its own, not the releasing test's.
        let process = process
        Thread.detachNewThread {
            for _ in 0..<600 where process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// `authsh serve --port 0 ARGS`, spawned without Foundation's `Process` (it is killed and
    /// reaped here, and Foundation's wait for a killed child was seen to hang), and its origin
    /// once it listens.
    static func spawn(_ arguments: [String], log: String) async throws -> (process: ChildProcess, origin: String) {
        let process = try ChildProcess([Binary.path, "serve", "--port", "0"] + arguments, output: log)
        for _ in 0..<400 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let origin = listeningOrigin(in: text) { return (process, origin) }
            try await Task.sleep(for: .milliseconds(25))
        }
        process.stop()
        throw TerminalError(message: "authsh serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// The origin of the `listening on ORIGIN` line `authsh serve` prints once it accepts
    /// connections, when `text` has it whole.
    static func listeningOrigin(in text: String) -> String? {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .first { $0.hasPrefix("listening on ") }.map { String($0.dropFirst("listening on ".count)) }
    }
}
