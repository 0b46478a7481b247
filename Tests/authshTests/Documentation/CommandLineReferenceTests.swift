// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The command tree the man pages and completions are generated from (`authsh-server
/// --experimental-dump-help`) declares what `authsh` and `authsh test` parse by hand: every
/// option their `--help` lists, and no other.
@Suite(.binary, .timeLimit(.minutes(5))) struct CommandLineReferenceTests {
    /// The options of one command of the dumped tree (`path` empty for the top level).
    static func declared(_ path: [String]) async throws -> Set<String> {
        let server = Binary.productsDirectory.appendingPathComponent("authsh-server").path
        let dump = try await Binary.run(["--experimental-dump-help"], executable: server)
        #expect(dump.status == 0, "\(dump.stderr)")
        var command = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])["command"] as? [String: Any]
        for name in path {
            let subcommands = command?["subcommands"] as? [[String: Any]] ?? []
            command = subcommands.first { $0["commandName"] as? String == name }
        }
        let arguments = try #require(command?["arguments"] as? [[String: Any]])
        var names: Set<String> = []
        for argument in arguments where argument["kind"] as? String != "positional" {
            for name in argument["names"] as? [[String: Any]] ?? [] {
                guard let text = name["name"] as? String, let kind = name["kind"] as? String else { continue }
                names.insert(kind == "long" ? "--" + text : "-" + text)
            }
        }
        return names
    }

    /// The options a hand-written `--help` lists: the words starting with `-` at the start of
    /// its indented lines (`  -j, --jobs N`).
    static func listed(_ help: String) -> Set<String> {
        var names: Set<String> = []
        for line in help.split(separator: "\n") where line.hasPrefix("  -") {
            for part in line.dropFirst(2).split(separator: " ").prefix(2) where part.hasPrefix("-") {
                names.insert(String(part.trimmingCharacters(in: CharacterSet(charactersIn: ","))))
            }
        }
        names.remove("--")
        return names
    }

    @Test func theTopLevel() async throws {
        let help = try await Binary.run(["--help"])
        #expect(Self.listed(help.stdout) == (try await Self.declared([])), "authsh --help:\n\(help.stdout)")
    }

    @Test func authshTest() async throws {
        let help = try await Binary.run(["test", "--help"])
        #expect(Self.listed(help.stdout) == (try await Self.declared(["test"])), "authsh test --help:\n\(help.stdout)")
    }
}
