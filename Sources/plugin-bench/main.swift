import AuthServer

/// The cost of one sandboxed plugin call, for `scripts/bench plugins`.
let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000
let figures = try await PluginBenchmark.run(iterations: iterations)
print("one sandboxed call on a checked-out state: \(Int(figures.onState / 1000 * 100) / 100) us ("
      + "argument conversion, coroutine run with deadline, result conversion)")
print("one call through the runtime: \(Int(figures.throughRuntime / 1000 * 100) / 100) us ("
      + "plus thread-pool hop, state checkout and checkin)")
