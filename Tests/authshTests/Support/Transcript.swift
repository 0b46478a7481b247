// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The transcripts of a Markdown document, as steps to replay: the unlabelled code blocks
/// whose lines are shell commands (`$ ...`) or REPL inputs (`authsh local> ...`) with what they
/// printed, and the `lua` blocks that show a plugin's file (`-- plugins/NAME.lua ...`).
///
/// An HTML comment just before a block steers its replay:
/// `<!-- transcript: password=SECRET -->` is typed at a `Password:` prompt,
/// `<!-- transcript: server=authsh serve --port 9091 -->` starts a server first,
/// `<!-- transcript: setup=COMMAND -->` runs a shell command first (its output unchecked),
/// `<!-- transcript: tab -->` presses Tab twice after its one input instead of Enter, and
/// `<!-- transcript: skip REASON -->` leaves the block out (the test lists what it skips).
struct Transcript {
    enum Action: Equatable {
        /// Write a file into the scratch directory.
        case file(path: String, content: String)
        /// A command in the shell window.
        case shell(String)
        /// A command that starts a REPL (in a window of its own).
        case startREPL(String)
        /// A command that keeps running (a server), in a window of its own.
        case server(String)
        /// A command run in the shell window before a block, its output not compared.
        case setup(String)
        /// Lines typed into the current REPL: the first after its prompt, the rest after `>>`.
        case repl(prompt: String, lines: [String], tab: Bool)
    }

    struct Step {
        var action: Action
        /// What the document shows it printed (the lines after it, before the next input).
        var expected: [String]
        /// The document's line of the step, for messages.
        var line: Int
        var password: String?
    }

    var steps: [Step] = []
    /// Blocks left out, with the reason their directive gives: `line: reason`.
    var skipped: [String] = []

    /// A REPL prompt at the start of a line: `authsh local> `, `authsh local ada@example.com> `.
    static var prompt: Regex<(Substring, Substring?)> { #/^authsh [A-Za-z0-9_.-]+( [^ >]+)?> /# }

    init(markdown: String) {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var i = 0
        while i < lines.count {
            guard let open = lines[i].firstMatch(of: #/^(\s*)```(\w*)\s*$/#) else {
                i += 1
                continue
            }
            let indent = open.1.count
            let language = String(open.2)
            var body: [String] = []
            var j = i + 1
            while j < lines.count, lines[j].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(String(lines[j].dropFirst(min(indent, lines[j].prefix { $0 == " " }.count))))
                j += 1
            }
            let directives = Self.directives(before: i, in: lines)
            if let reason = directives["skip"] {
                skipped.append("\(i + 1): \(reason)")
            } else {
                add(block: body, language: language, startLine: i + 2, directives: directives)
            }
            i = j + 1
        }
    }

    /// The `<!-- transcript: KEY[=VALUE] -->` comments on the lines just above line `index`.
    static func directives(before index: Int, in lines: [String]) -> [String: String] {
        var found: [String: String] = [:]
        var k = index - 1
        while k >= 0, k >= index - 4 {
            let line = lines[k].trimmingCharacters(in: .whitespaces)
            if line.isEmpty { k -= 1; continue }
            guard let m = line.firstMatch(of: #/^<!-- transcript: (\w+)[= ]?(.*?) -->$/#) else { break }
            found[String(m.1)] = String(m.2)
            k -= 1
        }
        return found
    }

    private mutating func add(block: [String], language: String, startLine: Int, directives: [String: String]) {
        if language == "lua" {
            if let m = block.first?.firstMatch(of: #/^-- (plugins/[\w-]+\.lua)/#) {
                steps.append(Step(action: .file(path: String(m.1), content: block.joined(separator: "\n") + "\n"), expected: [], line: startLine))
            }
            return
        }
        guard language.isEmpty, let first = block.first(where: { !$0.isEmpty }),
            first.hasPrefix("$ ") || first.firstMatch(of: Self.prompt) != nil
        else { return }
        if let setup = directives["setup"] {
            steps.append(Step(action: .setup(setup), expected: [], line: startLine - 2))
        }
        if let server = directives["server"] {
            steps.append(Step(action: .server(server), expected: [], line: startLine - 2))
        }
        var k = 0
        while k < block.count {
            let line = block[k]
            let number = startLine + k
            k += 1
            var output: [String] = []
            func isInput(_ s: String) -> Bool { s.hasPrefix("$ ") || s.firstMatch(of: Self.prompt) != nil }
            if line.hasPrefix("$ ") {
                let command = String(line.dropFirst(2))
                while k < block.count, !isInput(block[k]) {
                    output.append(block[k])
                    k += 1
                }
                if let m = command.firstMatch(of: #/^cat ([\w./-]+)$/#) {
                    steps.append(Step(action: .file(path: String(m.1), content: output.joined(separator: "\n") + "\n"), expected: [], line: number))
                }
                let startsREPL = k < block.count && block[k].firstMatch(of: Self.prompt) != nil
                let action: Action =
                    command.contains("authsh serve") ? .server(command) : startsREPL ? .startREPL(command) : .shell(command)
                steps.append(Step(action: action, expected: output, line: number))
            } else if let m = line.firstMatch(of: Self.prompt) {
                var typed = [String(line[m.range.upperBound...])]
                while k < block.count, block[k].hasPrefix(">> ") {
                    typed.append(String(block[k].dropFirst(3)))
                    k += 1
                }
                while k < block.count, !isInput(block[k]) {
                    output.append(block[k])
                    k += 1
                }
                let prompt = String(line[m.range]).trimmingCharacters(in: .whitespaces)
                steps.append(
                    Step(
                        action: .repl(prompt: prompt, lines: typed, tab: directives["tab"] != nil), expected: output, line: number,
                        password: directives["password"]))
            }
        }
    }
}

/// How printed text is compared with the document's: ids, tokens, ports, times and rates
/// differ from run to run, and the document shortens ids (`6b017a67...`).
enum TranscriptText {
    /// One line with what varies replaced by a placeholder, and spaces collapsed.
    static func normalized(_ line: String) -> String {
        var s = line.replacing(#/127\.0\.0\.1(:|%3A)\d+/#, with: "127.0.0.1:<port>")
        s = s.replacing(#/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/#, with: "<time>")
        s = s.replacing(#/[0-9a-f]{8,}(\.\.\.)?/#, with: "<hex>")
        s = s.replacing(#/[A-Za-z0-9_-]{32,}/#, with: "<token>")
        s = s.replacing(#/\d+(\.\d+)?\/s/#, with: "<n>/s")
        s = s.replacing(#/\d+\.\d+/#, with: "<n>")
        s = s.replacing(#/\d{6,}/#, with: "<n>")
        s = s.replacing(#/\s+/#, with: " ")
        return s.trimmingCharacters(in: .whitespaces)
    }

    /// Whether the printed lines are what the document shows. A document line that ends with
    /// `...` stands for any line that starts with the rest.
    static func matches(expected: [String], actual: [String]) -> Bool {
        let e = expected.map(normalized).filter { !$0.isEmpty }
        let a = actual.map(normalized).filter { !$0.isEmpty }
        guard e.count == a.count else { return false }
        return zip(e, a).allSatisfy { e, a in e == a || (e.hasSuffix("...") && a.hasPrefix(String(e.dropLast(3)))) }
    }

    /// The lines before a `stack traceback:` and its indented lines.
    static func withoutTraceback(_ lines: [String]) -> [String] {
        var out: [String] = []
        var inTraceback = false
        for line in lines {
            if line == "stack traceback:" { inTraceback = true; continue }
            if inTraceback, line.hasPrefix(" ") || line.hasPrefix("\t") { continue }
            inTraceback = false
            out.append(line)
        }
        return out
    }

    /// Whether `expected` lines appear in `lines` in order (others between them).
    static func contains(_ lines: [String], inOrder expected: [String]) -> Bool {
        var rest = expected[...]
        for line in lines where !rest.isEmpty {
            if matches(expected: [rest.first!], actual: [line]) { rest.removeFirst() }
        }
        return rest.isEmpty
    }

    /// The document's ids and tokens paired with the ones printed in their place, so that a later
    /// input that pastes one (`confirm{ token = "629ec061..." }`) can be typed with the real one.
    static func pairs(expected: [String], actual: [String]) -> [(String, String)] {
        let e = expected.filter { !normalized($0).isEmpty }
        let a = actual.filter { !normalized($0).isEmpty }
        var pairs: [(String, String)] = []
        for (el, al) in zip(e, a) {
            let ids = #/[0-9a-f]{8,}(\.\.\.)?/#
            for (x, y) in zip(el.matches(of: ids), al.matches(of: ids)) { pairs.append((String(x.output.0), String(y.output.0))) }
        }
        return pairs
    }
}
