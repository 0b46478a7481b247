// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// Replays a document's transcript in a ``Console`` and reports the first step whose output
/// differs from the document's.
final class TranscriptRunner {
    let console: Console
    let transcript: Transcript
    let document: String
    /// Text of the document replaced before it is typed or compared: `/tmp/` by the scratch
    /// directory's, a fixed port by a free one, an id the document shows by the one printed.
    private var substitutions: [(String, String)]
    private var repl: String?
    private var windows = 0

    init(document: String, scratch: String) async throws {
        self.document = document
        transcript = Transcript(markdown: try String(contentsOfFile: Binary.repository + "/" + document, encoding: .utf8))
        console = try await Console(directory: scratch)
        substitutions = [("/tmp/", scratch + "/tmp/")]
        // The example plugins, as in a clone; a document's own plugin files are written beside them.
        try FileManager.default.copyItem(atPath: Binary.repository + "/plugins", toPath: scratch + "/plugins")
        try FileManager.default.createDirectory(atPath: scratch + "/tmp", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/scripts", withDestinationPath: Binary.repository + "/scripts")
        try await console.open("shell")
    }

    /// Runs every step; nil when all printed what the document shows, else what differed.
    func run() async throws -> String? {
        for step in transcript.steps {
            if let problem = try await run(step) {
                let shell = try await console.lines("shell").suffix(20).joined(separator: "\n")
                return "\(document):\(step.line): \(problem)\n(the shell window ends with:)\n\(shell)"
            }
        }
        return nil
    }

    private func substituted(_ text: String) -> String {
        substitutions.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    private func run(_ step: Transcript.Step) async throws -> String? {
        let expected = step.expected.map(substituted)
        switch step.action {
        case .file(let path, let content):
            let url = URL(fileURLWithPath: console.directory + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
            return nil
        case .setup(let command):
            let start = try await console.lines("shell").count - 1
            try await console.type("shell", substituted(command))
            _ = try await console.waitForPrompt("shell", after: start)
            return nil
        case .shell(let command):
            return try await typeAndCompare("shell", substituted(command), expected: expected, step: step)
        case .startREPL(let command):
            windows += 1
            let window = "repl\(windows)"
            try await console.open(window)
            repl = window
            return try await typeAndCompare(window, substituted(command), expected: expected, step: step)
        case .server(let command):
            for m in command.matches(of: #/--(metrics-)?port (\d+)/#) where m.2 != "0" {
                let port = String(try LoopbackSocket.freePort())
                substitutions += [
                    ("\(m.0)", "--\(m.1 ?? "")port \(port)"), ("127.0.0.1:\(m.2)", "127.0.0.1:\(port)"), ("localhost:\(m.2)", "localhost:\(port)"),
                ]
            }
            windows += 1
            let window = "server\(windows)"
            try await console.open(window)
            let before = try await console.lines(window).count
            // In a window of its own, a server the document puts in the background need not be.
            var command = substituted(command)
            if command.hasSuffix(" &") { command.removeLast(2) }
            try await console.type(window, command)
            // A server does not return, and logs as it goes: wait for the lines the document shows,
            // in order among what it printed (one the document does not show: until it listens).
            let wanted = expected.isEmpty ? ["listening on ..."] : expected
            _ = try await console.waitUntil(window, "the server's lines \(wanted)") { lines in
                TranscriptText.contains(Array(lines[min(before, lines.count)...]), inOrder: wanted)
            }
            return nil
        case .repl(let prompt, let typed, let tab):
            guard let window = repl else { return "a REPL input with no REPL started before it" }
            let before = try await console.lines(window)
            guard let last = before.last, TranscriptText.normalized(last) == TranscriptText.normalized(prompt) else {
                return "the prompt is \(before.last ?? "nothing"), the document shows \(prompt)"
            }
            if tab {
                // The words listed, whatever the columns: readline lays them out for the terminal's width.
                let words = { (lines: [String]) in Set(lines.flatMap { $0.split(separator: " ").map(String.init) }) }
                try await console.type(window, typed[0], enter: false)
                try await console.press(window, "Tab", "Tab")
                _ = try await console.waitUntil(window, "the completions \(words(expected).sorted())") { lines in
                    lines.count > before.count + 1 && words(Array(lines[before.count..<(lines.count - 1)])) == words(expected)
                }
                try await console.press(window, "C-u")
                _ = try await console.waitUntil(window, "the line cleared") { Console.isPrompt($0.last ?? "") }
                return nil
            }
            return try await typeAndCompare(window, typed.map(substituted), expected: expected, step: step)
        }
    }

    private func typeAndCompare(_ window: String, _ input: String, expected: [String], step: Transcript.Step) async throws -> String? {
        try await typeAndCompare(window, [input], expected: expected, step: step)
    }

    /// Types the lines (a continuation after each `>>`), answers a `Password:` prompt and
    /// presses Ctrl-C where the document shows `^C`, then compares what was printed.
    private func typeAndCompare(_ window: String, _ input: [String], expected: [String], step: Transcript.Step) async throws -> String? {
        var start = try await console.lines(window).count - 1
        for (n, line) in input.enumerated() {
            try await console.type(window, line)
            if n < input.count - 1 { start = try await console.waitForPrompt(window, after: start).count - 1 }
        }
        if let cut = expected.firstIndex(of: "^C") {
            // Ctrl-C once the document's lines before it are on screen.
            let shown = Array(expected[..<cut])
            _ = try await console.waitUntil(window, "the lines before ^C") { lines in
                let after = Array(lines[(start + 1)...])
                return after.count >= shown.count && TranscriptText.matches(expected: shown, actual: Array(after.prefix(shown.count)))
            }
            try await console.press(window, "C-c")
        }
        if expected.last?.trimmingCharacters(in: .whitespaces) == "Password:" || expected.contains("Password:") {
            _ = try await console.waitUntil(window, "Password:") { $0.last?.hasPrefix("Password:") == true }
            try await console.type(window, step.password ?? "")
        }
        let lines = try await console.waitForPrompt(window, after: start)
        let printed = Array(lines[(start + 1)..<(lines.count - 1)])
        // The ^C the terminal echoes is on the line of the interrupted input or a line of its own.
        var shown = expected.filter { $0 != "^C" }
        var actual = printed.map { $0.hasPrefix("^C") ? String($0.dropFirst(2)) : $0 }
        if expected.contains("^C") {
            // Where the interrupt lands decides whether a traceback follows: leave it out.
            shown = TranscriptText.withoutTraceback(shown)
            actual = TranscriptText.withoutTraceback(actual)
        }
        guard TranscriptText.matches(expected: shown, actual: actual) else {
            return mismatch(input.joined(separator: "\n>> "), expected: shown, actual: actual)
        }
        for (documented, printed) in TranscriptText.pairs(expected: shown, actual: actual) where documented != printed {
            substitutions.append((documented, printed))
        }
        return nil
    }

    private func mismatch(_ input: String, expected: [String], actual: [String]) -> String {
        "after `\(input)` the document shows\n" + expected.joined(separator: "\n") + "\nand this run printed\n" + actual.joined(separator: "\n")
    }
}
