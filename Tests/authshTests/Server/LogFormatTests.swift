// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `authsh serve --log-format json`: every line on stderr is one JSON object with `time`,
/// `level`, `label` and `message`.
@Suite(.binary, .timeLimit(.minutes(5))) struct LogFormatTests {
    @Test func jsonLogsAreOneObjectPerLine() async throws {
        let server = try await ServerProcess(["--log-format", "json", "--log-level", "info"], examplePlugins: false)
        // A failed login logs nothing secret; the start-up warning about mail is enough to read.
        let text = try String(contentsOfFile: server.directory + "/err", encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(!lines.isEmpty, "the server logs its mail warning at start")
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(
                object?["level"] as? String != nil && object?["message"] as? String != nil && object?["label"] as? String == "authsh.server",
                "\(line)")
            #expect((object?["time"] as? String)?.hasSuffix("Z") == true)
        }
        #expect(try await Binary.run(["serve", "--log-format", "xml"]).status == 64)
    }
}
