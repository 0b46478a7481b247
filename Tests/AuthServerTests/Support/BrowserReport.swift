// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// What the browser scripts (Tests/browser/*.py) end with: one JSON line, their report.
enum BrowserReport {
    /// Waits up to `seconds` for `browser` to end (then stops it) and reads the last JSON line
    /// of `output`; a report that says `error` is recorded as an issue.
    static func read(_ browser: ChildProcess, output: String, seconds: Int = 90) async throws -> [String: Any] {
        for _ in 0..<seconds * 20 where browser.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        browser.stop()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").last(where: { $0.hasPrefix("{") }), "no report: \(text)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["error"] == nil, "\(report)")
        return report
    }
}
