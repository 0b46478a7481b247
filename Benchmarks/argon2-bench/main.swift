// SPDX-License-Identifier: Apache-2.0
import AuthServer
import Foundation
import Synchronization

/// Raw Argon2id verifications per second on every core, at the server's parameters: the
/// baseline of `scripts/bench server`'s login ratio. Prints `argon2id <N>/s on ...`.
func measure(seconds: Double) throws {
    let parameters = PasswordHasher.Parameters.owaspMinimum
    let phc = try PasswordHasher.hashNow("correct horse battery staple", parameters)
    let threads = ProcessInfo.processInfo.activeProcessorCount
    let total = Mutex(0)
    let start = Date()
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        var n = 0
        while Date().timeIntervalSince(start) < seconds {
            precondition(PasswordHasher.verifyNow("correct horse battery staple", phc))
            n += 1
        }
        total.withLock { $0 += n }
    }
    let rate = Double(total.withLock { $0 }) / Date().timeIntervalSince(start)
    print(
        "argon2id \(String(format: "%.1f", rate))/s on \(threads) threads "
            + "(m=\(parameters.memoryKiB) KiB, t=\(parameters.iterations), p=\(parameters.parallelism))")
}

try measure(seconds: Double(CommandLine.arguments.dropFirst().first ?? "5") ?? 5)
