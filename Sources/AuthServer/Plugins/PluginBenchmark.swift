// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import Foundation
import Logging
import Lua

/// Figures for `scripts/bench plugins`: what one sandboxed call costs, measured in process.
public enum PluginBenchmark {
    /// Nanoseconds per call of a trivial plugin function (`function(a, b) return {sum = a + b} end`
    /// with two integer arguments and a table result).
    public struct Figures: Sendable {
        /// On a state already checked out: argument conversion, the run (coroutine, deadline
        /// watchdog), result conversion.
        public var onState: Double
        /// Through the runtime on the caller's thread (the fast path): plugin lookup, state
        /// checkout and checkin, and the call.
        public var inline: Double
        /// Through the runtime with the hop to the plugin thread pool and back.
        public var throughPool: Double
    }

    /// Times `iterations` calls each way.
    public static func run(iterations: Int) async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authsh-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("return function(a, b) return {sum = a + b} end".utf8).write(to: URL(fileURLWithPath: directory + "/add.lua"))
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = try SQLiteStore(path: nil)
        let services = PluginServices(
            appId: "bench", store: store, mailer: UndeliveredMail(store: store, logger: logger),
            clock: ServerClock(), logger: logger)
        let limits = LuaState.SandboxLimits()
        let runtime = try PluginRuntime(
            directory: directory, required: true, limits: limits, watch: false,
            reloadOnHangup: false, apps: [services], logger: logger)
        let invocation = PluginInvocation(function: "add", values: [:])
        let arguments: [LuaValue] = [.integer(40), .integer(2)]

        let state = try PluginState(
            set: PluginSet(files: try PluginSet.scan(directory), exports: ["add": "add.lua"]),
            services: services, limits: limits)
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations {
            let result = try state.call("add", arguments: arguments, invocation: invocation)
            precondition(result.tableValue?["sum"] == .integer(42))
        }
        let onState = clock.now - start

        func viaRuntime(inline: Bool) async throws -> Duration {
            let start = clock.now
            for _ in 0..<iterations {
                let result = try await runtime.call(
                    app: "bench", function: "add", arguments: arguments,
                    invocation: invocation, inline: inline)
                precondition(result.tableValue?["sum"] == .integer(42))
            }
            return clock.now - start
        }
        let inline = try await viaRuntime(inline: true)
        let throughPool = try await viaRuntime(inline: false)
        func ns(_ d: Duration) -> Double {
            (Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) * 1e-9) / Double(iterations)
        }
        return Figures(onState: ns(onState), inline: ns(inline), throughPool: ns(throughPool))
    }
}
