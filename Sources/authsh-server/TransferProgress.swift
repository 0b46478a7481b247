// SPDX-License-Identifier: Apache-2.0
import AuthClient
import Glibc
import Synchronization

/// The progress of `authsh admin export` and `import` on stderr: a bar redrawn in place on a
/// terminal (done, rate, time left), otherwise a line a second.
final class TransferProgress: Sendable {
    private struct State {
        var lastDraw = 0.0
        var drew = false
    }

    private let started = TransferProgress.now()
    private let terminal = isatty(2) != 0
    /// Nothing is drawn in the first half second (or second, off a terminal): a small
    /// transfer shows no progress at all.
    private let state = Mutex(State(lastDraw: TransferProgress.now() + (isatty(2) != 0 ? 0.45 : 0)))

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Shows `p` when it is time to (20 times a second on a terminal, once a second otherwise).
    func show(_ p: AdminClient.Progress) {
        let now = Self.now()
        let due = state.withLock { s -> Bool in
            guard now - s.lastDraw >= (terminal ? 0.05 : 1) else { return false }
            s.lastDraw = now
            s.drew = true
            return true
        }
        guard due else { return }
        write(render(p, elapsed: now - started))
    }

    /// Ends a bar's line.
    func finish() {
        if terminal && state.withLock({ $0.drew }) { write("\n") }
    }

    private func render(_ p: AdminClient.Progress, elapsed: Double) -> String {
        let unit = p.phase == "export" ? "lines" : "bytes"
        let rate = elapsed > 0 ? Double(p.done) / elapsed : 0
        var text = "\(p.phase) \(Self.count(p.done))"
        if let total = p.total, total > 0 {
            let fraction = min(1, Double(p.done) / Double(total))
            text += "/\(Self.count(total)) \(unit) (\(Int(fraction * 100))%)"
            if terminal {
                let filled = Int(fraction * 30)
                text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled) + "] " + text
            }
            if rate > 0 && p.done < total { text += ", \(Int((Double(total - p.done) / rate).rounded(.up))) s left" }
        } else {
            text += " \(unit)"
        }
        text += ", \(Self.count(Int(rate)))/s"
        return terminal ? "\r\u{1B}[K" + text : text + "\n"
    }

    /// 1234567 as 1.2M, 12345 as 12.3k.
    static func count(_ n: Int) -> String {
        switch n {
        case 1_000_000...: return String(Double(n / 100_000) / 10) + "M"
        case 10_000...: return String(Double(n / 100) / 10) + "k"
        default: return String(n)
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
