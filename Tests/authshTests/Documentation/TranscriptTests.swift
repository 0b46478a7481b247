// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Every transcript in the README and the docs is replayed in a real terminal against the
/// built binary, and must print what the document shows (ids, tokens, ports and times aside).
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")), .binary, .timeLimit(.minutes(10)))
struct TranscriptTests {
    /// The documents with transcripts.
    static let documents = [
        "README.md", "docs/tour.md", "docs/command-line.md", "docs/plugins.md", "docs/server/README.md",
        "docs/server/administering.md", "docs/server/operating.md",
    ]

    @Test(arguments: documents) func theTranscriptPrintsWhatTheDocumentShows(document: String) async throws {
        let runner = try await TranscriptRunner(document: document, scratch: try Binary.temporaryDirectory())
        #expect(!runner.transcript.steps.isEmpty, "\(document) has no transcript")
        if let problem = try await runner.run() { Issue.record(Comment(rawValue: problem)) }
    }

    /// Every document with a transcript is in the list above.
    @Test func everyDocumentWithATranscriptIsReplayed() throws {
        var found: [String] = []
        let walker = FileManager.default.enumerator(atPath: Binary.repository + "/docs")
        var files = ["README.md"]
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".md") { files.append("docs/" + path) }
        }
        for file in files {
            let text = try String(contentsOfFile: Binary.repository + "/" + file, encoding: .utf8)
            let transcript = Transcript(markdown: text)
            let replayed = transcript.steps.contains { if case .file = $0.action { false } else { true } }
            if replayed || !transcript.skipped.isEmpty { found.append(file) }
        }
        #expect(found.sorted() == Self.documents.sorted())
    }
}
