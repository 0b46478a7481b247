// SPDX-License-Identifier: Apache-2.0
import Glibc
import Lua
import Synchronization

/// `auth.progress(total)`: progress of a long script on stderr. On a terminal, a bar redrawn in
/// place; otherwise a plain line at most once a second, and one at the end.
final class ProgressObject: LuaObject {
    struct State {
        var done: Int64 = 0
        var finished = false
        var lastDraw: Double = 0
    }

    let total: Int64
    let label: String
    let started = ProgressObject.now()
    let toTerminal = isatty(2) != 0
    let state = Mutex(State())

    init(total: Int64, label: String) {
        self.total = total
        self.label = label
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Counts `n` more done and draws when it is time to.
    func step(_ n: Int64) {
        let line: String? = state.withLock { s in
            guard !s.finished else { return nil }
            s.done = min(total, s.done + n)
            let now = ProgressObject.now()
            let complete = s.done >= total
            guard complete || now - s.lastDraw >= (toTerminal ? 0.05 : 1) else { return nil }
            s.lastDraw = now
            if complete { s.finished = true }
            return render(s.done, elapsed: now - started, final: complete)
        }
        if let line { StandardError.write(line) }
    }

    /// Ends the display (a last line even if not every step was counted).
    func finish() {
        let line: String? = state.withLock { s in
            guard !s.finished else { return nil }
            s.finished = true
            return render(s.done, elapsed: ProgressObject.now() - started, final: true)
        }
        if let line { StandardError.write(line) }
    }

    private func render(_ done: Int64, elapsed: Double, final: Bool) -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let figures = "\(done)/\(total) (\(Int(fraction * 100))%) \(Self.format(rate))/s"
        let prefix = label.isEmpty ? "" : label + " "
        guard toTerminal else { return prefix + figures + (final ? " done in \(Self.format(elapsed)) s\n" : "\n") }
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\r\u{1B}[K" + prefix + "[" + bar + "] " + figures + (final ? "\n" : "")
    }

    static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    static let luaClass = LuaClass<ProgressObject>(
        "Progress",
        summary: "A progress report on stderr, made by `auth.progress`.",
        members: [
            .property("total", "integer", "the steps to do") { .integer($0.total) },
            .property("count", "integer", "the steps done") { p in .integer(p.state.withLock { $0.done }) },
            .method("step", "(n?: integer)", "counts `n` steps done (default 1)") { p, call in
                p.step(try call.optionalInteger(2) ?? 1)
                return .none
            },
            .method("done", "()", "ends the report with its final line") { p, _ in
                p.finish()
                return .none
            },
        ],
        description: { p in "Progress(\(p.state.withLock { $0.done })/\(p.total))" })
}
