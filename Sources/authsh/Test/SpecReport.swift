// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// How `authsh test` reports: busted's output handlers, each file's output kept and printed
/// in file order; the machine-read formats merged into one document for the whole run.
enum SpecFormat: Equatable {
    /// busted's terminal handlers (`utfTerminal`, `plainTerminal`): each file's output as
    /// busted prints it, then one line of totals.
    case terminal(String)
    /// JUnit XML: one `testsuites` with a `testsuite` per file, named after it.
    case junit
    /// TAP: the files' tests numbered in one sequence, one plan.
    case tap
    /// JSON: `successes`, `failures`, `errors` and `pendings` (each result's name, file, line
    /// and message) of every file, and the `duration` added up.
    case json

    /// The format `-o NAME` names (busted's names, and `junit`, `tap`, `json` in any case);
    /// nil for one `authsh test` cannot merge.
    init?(_ name: String) {
        switch name.lowercased() {
        case "utfterminal": self = .terminal("utfTerminal")
        case "plainterminal", "terminal": self = .terminal("plainTerminal")
        case "junit": self = .junit
        case "tap": self = .tap
        case "json": self = .json
        default: return nil
        }
    }

    /// busted's name of the handler each file's process uses.
    var handler: String {
        switch self {
        case .terminal(let name): name
        case .junit: "junit"
        case .tap: "TAP"
        case .json: "plainTerminal"  // the helper writes the results; busted's own json handler is broken
        }
    }

    /// Whether the format is read by programs: then a file's standard error is kept apart
    /// from its output (and printed on `authsh test`'s standard error).
    var isDocument: Bool {
        if case .terminal = self { false } else { true }
    }
}

/// Gathers the files' runs and writes the report.
struct SpecReport {
    let format: SpecFormat
    private(set) var totals = SpecCounts()
    private var tapNumber = 0
    private var junitSuites: [String] = []
    private var json: [String: [EJSON]] = ["successes": [], "failures": [], "errors": [], "pendings": []]
    private var duration = 0.0

    init(format: SpecFormat) { self.format = format }

    /// Takes one file's run: prints it at once for the terminal and TAP, keeps it for the others.
    mutating func add(_ run: SpecRun, print: (String) -> Void) {
        let counts =
            run.counts
            ?? {
                var failed = SpecCounts()
                failed.errors = 1
                return failed
            }()
        totals = totals + counts
        let text = String(decoding: run.output, as: UTF8.self)
        switch format {
        case .terminal:
            print(text)
            if run.counts == nil { print("authsh test: \(run.file) ended without a result (status \(run.status))\n") }
        case .tap:
            var lines: [String] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("1..") { continue }
                if let rest = Self.tapResult(line) {
                    tapNumber += 1
                    lines.append("\(rest.ok) \(tapNumber)\(rest.tail)")
                } else if !line.isEmpty {
                    lines.append(String(line))
                }
            }
            if run.counts == nil {
                tapNumber += 1
                lines.append("not ok \(tapNumber) - \(run.file) ended without a result (status \(run.status))")
            }
            if !lines.isEmpty { print(lines.joined(separator: "\n") + "\n") }
        case .junit:
            junitSuites.append(Self.junitSuites(text, file: run.file, run: run))
        case .json:
            if let document = run.results {
                for key in json.keys { json[key]! += document[key]?.arrayValue ?? [] }
                duration += document["duration"]?.doubleValue ?? 0
            } else {
                json["errors"]!.append(
                    .document(["name": .string(run.file), "message": .string("ended without a result (status \(run.status))")]))
            }
        }
    }

    /// What is printed after the last file: the totals line, the merged document or the plan.
    func finish(files: Int) -> String {
        switch format {
        case .terminal:
            let t = totals
            return "authsh test: \(files) file\(files == 1 ? "" : "s"), \(t.successes) success\(t.successes == 1 ? "" : "es") / "
                + "\(t.failures) failure\(t.failures == 1 ? "" : "s") / \(t.errors) error\(t.errors == 1 ? "" : "s") / \(t.pendings) pending\n"
        case .tap:
            return "1..\(tapNumber)\n"
        case .junit:
            let t = totals
            return """
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuites tests="\(t.successes + t.failures + t.errors + t.pendings)" failures="\(t.failures)" errors="\(t.errors)" skip="\(t.pendings)">
                \(junitSuites.joined())</testsuites>

                """
        case .json:
            var document: EJSONDocument = [:]
            for key in ["successes", "failures", "errors", "pendings"] { document[key] = .array(json[key]!) }
            document["duration"] = .double(duration)
            return EJSON.document(document).encodedString(.relaxed) + "\n"
        }
    }

    /// `ok 3 - name` as ("ok", " - name"); nil for a line that is not a result.
    private static func tapResult(_ line: Substring) -> (ok: String, tail: Substring)? {
        for ok in ["not ok ", "ok "] where line.hasPrefix(ok) {
            let rest = line.dropFirst(ok.count)
            let digits = rest.prefix { $0.isNumber }
            guard !digits.isEmpty else { return nil }
            return (String(ok.dropLast()), rest.dropFirst(digits.count))
        }
        return nil
    }

    /// The `testsuite` elements of one file's JUnit output, named after the file; one with an
    /// error test case when the file gave no result.
    private static func junitSuites(_ text: String, file: String, run: SpecRun) -> String {
        if run.counts != nil, let start = text.firstRange(of: "<testsuite "), let end = text.ranges(of: "</testsuites>").last {
            let suites = String(text[start.lowerBound..<end.lowerBound])
            // busted names each suite "Run 1 of 1"; the file says more in a CI system's report.
            return suites.replacing(#/name='Run \d+ of \d+'/#) { _ in "name='\(xmlEscaped(file))'" }
        }
        let output = String(decoding: run.output.suffix(4000), as: UTF8.self)
        return """
              <testsuite name="\(xmlEscaped(file))" tests="1" errors="1" failures="0" skip="0">
                <testcase classname="\(xmlEscaped(file))" name="\(xmlEscaped(file))">
                  <error message="ended without a result (status \(run.status))">\(xmlEscaped(output))</error>
                </testcase>
              </testsuite>

            """
    }

    static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 has no place for most control characters, even escaped.
                if c.value < 0x20 && c != "\n" && c != "\t" && c != "\r" { out += "?" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
