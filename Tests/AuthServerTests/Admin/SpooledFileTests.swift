// SPDX-License-Identifier: Apache-2.0
@testable import AuthServer
import Foundation
import Hummingbird
import NIOCore
import Testing

/// An import's body is spooled to a file with no name: nothing of it is ever on disk for
/// another process to open or for a request that ends early to leave behind, and it reads
/// back whole, as often as asked.
@Suite(.timeLimit(.minutes(5))) struct SpooledFileTests {
    static func spooled() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("authsh-import-") }
    }

    @Test func theBodyIsInNoFileAndReadsBackTwice() async throws {
        let text = "{\"a\":1}\n{\"b\":2}\nlast"
        let before = Set(try Self.spooled())  // whatever an older build left behind
        let spool = try await SpooledFile(RequestBody(buffer: ByteBuffer(string: text)), limit: 1 << 20)
        #expect(spool.size == text.utf8.count)
        let named = Set(try Self.spooled()).subtracting(before)
        #expect(named.isEmpty, "a named file: \(named)")
        for _ in 0..<2 {
            var lines: [String] = []
            try await spool.eachLine(maxLine: 100) { _, bytes in lines.append(bytes.map { String(decoding: $0, as: UTF8.self) } ?? "nil") }
            #expect(lines == ["{\"a\":1}", "{\"b\":2}", "last"])
        }
    }
}
