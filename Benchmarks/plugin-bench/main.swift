// SPDX-License-Identifier: Apache-2.0
import AuthServer

/// The cost of one sandboxed plugin call, for `scripts/bench plugins`.
let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000
let figures = try await PluginBenchmark.run(iterations: iterations)
func us(_ ns: Double) -> String { "\((ns / 10).rounded() / 100) us" }
print(
    "one sandboxed call on a checked-out state: \(us(figures.onState)) "
        + "(argument conversion, coroutine run with deadline, result conversion)")
print("through the runtime on the caller's thread: \(us(figures.inline)) (plus lookup, state checkout and checkin)")
print("through the runtime via the plugin thread pool: \(us(figures.throughPool)) (plus the hop there and back)")
