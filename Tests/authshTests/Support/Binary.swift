// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// Runs the built `authsh` binary (it sits next to the test bundle) and captures its output.
struct Binary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The directory holding the built products.
    static let productsDirectory: URL = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent()
    }()

    static let path = productsDirectory.appendingPathComponent("authsh").path

    /// Held from spawn to exit: a child spawned meanwhile (or tmux's daemon) would inherit
    /// this child's pipe ends and keep them open, so EOF would never come.
    static let spawnLock = NSLock()

    /// Runs `authsh args...` with `stdin` as standard input, in `directory`, to its exit. The
    /// wait is on a thread of its own (``offPool(_:)``).
    static func run(
        _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
        directory: String? = nil, executable: String = Binary.path
    ) async throws -> Result {
        try await offPool { try runBlocking(arguments, stdin: stdin, environment: environment, directory: directory, executable: executable) }
    }

    /// Runs `body`, which blocks (a child's exit, a lock), on a new thread and waits for it
    /// without holding a thread of Swift's cooperative pool: the in-process servers of the
    /// other tests need those threads (one per core), and a test that held them made those
    /// servers answer late.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    /// Waits for `process` to exit, on a thread of its own.
    static func waitForExit(_ process: Process) async throws {
        try await offPool { process.waitUntilExit() }
    }

    /// ``run(_:stdin:environment:directory:executable:)`` on the calling thread: for the few
    /// static checks that run once, before any test, where no await is possible.
    static func runBlocking(
        _ arguments: [String], stdin: String, environment: [String: String], directory: String?, executable: String
    ) throws -> Result {
        spawnLock.lock()
        defer { spawnLock.unlock() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    /// A new empty directory under the system's temporary directory.
    static func temporaryDirectory() throws -> String {
        try Scratch.directory("test")
    }

    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
