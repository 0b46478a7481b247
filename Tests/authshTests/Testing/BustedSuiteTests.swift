// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// busted's own specs (`Tests/busted`) give the same result for every test under `authsh test`
/// as under `lua5.4 /usr/bin/busted`, all passing: `authsh test` runs busted as busted runs itself.
@Suite(.binary, .timeLimit(.minutes(5))) struct BustedSuiteTests {
    @Test func bustedsOwnSpecsPassAsUnderLua() async throws {
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.removeItem(atPath: dir)
        try FileManager.default.copyItem(atPath: Binary.repository + "/Tests/busted", toPath: dir)
        let ours = try await Binary.run(["test", "-o", "tap"], directory: dir)
        let theirs = try await Binary.run(["/usr/bin/busted", "-o", "TAP", "spec"], directory: dir, executable: "/usr/bin/lua5.4")
        /// "ok 12 - name" as "ok name": the numbering differs with the order files run in.
        func results(_ tap: String) -> [String] {
            tap.split(separator: "\n").compactMap { line in
                guard let match = line.firstMatch(of: #/^(not ok|ok) \d+ - (.*)$/#) else { return nil }
                return "\(match.1) \(match.2)"
            }.sorted()
        }
        let mine = results(ours.stdout), expected = results(theirs.stdout)
        #expect(expected.count > 500, "lua5.4 ran \(expected.count) tests: \(theirs.stderr)")
        #expect(mine == expected, "\(Set(mine).symmetricDifference(expected).sorted().prefix(10))")
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.stderr)\n\(theirs.stderr)")
        #expect(!mine.contains { $0.hasPrefix("not ok") })
    }
}
