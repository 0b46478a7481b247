// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `authsh audit` reads the audit log of a data directory: what a script did, oldest first,
/// filtered, as text or JSON lines.
@Suite(.binary, .timeLimit(.minutes(5))) struct AuditCommandTests {
    @Test func readsWhatAScriptDid() async throws {
        let data = try Binary.temporaryDirectory()
        let script = #"local u = login(credentials.anonymous()); print(u.id); register{email = "audit@example.com", password = "password1"}"#
        let run = try await Binary.run(["--data", data, "-e", script])
        #expect(run.status == 0, "\(run.stderr)")
        let userId = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let text = try await Binary.run(["audit", "--data", data + "/server"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(text.stdout)")
        #expect(lines.first?.contains(" local login success user=\(userId) provider=anon-user address=127.0.0.1") == true, "\(text.stdout)")
        #expect(lines.last?.contains(" local register success provider=local-userpass") == true)

        let json = try await Binary.run(["audit", "--data", data + "/server", "--json", "--event", "register"])
        let objects = json.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 1 && objects.first?["event"] as? String == "register" && objects.first?["outcome"] as? String == "success")
        let mine = try await Binary.run(["audit", "--data", data + "/server", "--user", userId, "--since", "1h"])
        #expect(mine.stdout.split(separator: "\n").count == 1)

        #expect(try await Binary.run(["audit", "--data", data + "/nowhere"]).status == 1)
        #expect(try await Binary.run(["audit", "--bogus"]).status == 64)
        // The command line wins over the config file: --data over the file's database.
        let config = data + "/elsewhere.json"
        try Binary.write(#"{"database": "sqlite:\#(data)/nowhere/authsh.sqlite", "apps": [{"id": "local"}]}"#, to: config)
        let chosen = try await Binary.run(["audit", "--config", config, "--data", data + "/server"])
        #expect(chosen.status == 0 && chosen.stdout.split(separator: "\n").count == 2, "\(chosen.stderr)")
        #expect(try await Binary.run(["audit", "--config", data + "/absent.json"]).status == 78)
        // A mistyped sqlite: path is not made into a new database.
        let typo = try await Binary.run(["audit", "--database", "sqlite:" + data + "/typo/authsh.sqlite"])
        #expect(typo.status == 1 && typo.stderr.contains("no database"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/typo"))
        #expect(try await Binary.run(["audit", "--limit", "0"]).status == 64)
        #expect(try await Binary.run(["audit", "--since", "yesterday"]).status == 64)
    }

    /// `--follow`: the events so far, then those recorded while it runs, each once, in order,
    /// filtered as asked.
    @Test func followPrintsEventsAsTheyAreRecorded() async throws {
        let data = try Binary.temporaryDirectory()
        let first = try await Binary.run(["--data", data, "-e", "login(credentials.anonymous())"])
        #expect(first.status == 0, "\(first.stderr)")
        let log = data + "/follow.log"
        let follower = try ChildProcess([Binary.path, "audit", "--data", data + "/server", "--follow", "--event", "login"], output: log)
        defer { follower.stop() }
        func lines(_ count: Int) async throws -> [Substring] {
            for _ in 0..<400 {
                let found = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                if found.count >= count { return found }
                try await Task.sleep(for: .milliseconds(25))
            }
            Issue.record("waited for \(count) lines: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            return []
        }
        #expect(try await lines(1).first?.contains(" local login success ") == true)
        // A registration (filtered out), then a new anonymous user's login.
        let second = try await Binary.run([
            "--data", data, "-e",
            """
            register{email = 'f@example.com', password = 'password1'}
            print(login(credentials.anonymous{reuse = false}).id)
            """,
        ])
        #expect(second.status == 0, "\(second.stderr)")
        let userId = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let after = try await lines(2)
        #expect(after.count == 2 && after[1].contains(" local login success user=\(userId) "), "\(after)")
        // Nothing is printed twice: a later event comes next, with no repeat before it.
        let third = try await Binary.run(["--data", data, "-e", "print(login(credentials.anonymous{reuse = false}).id)"])
        let thirdId = third.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = try await lines(3)
        #expect(last.count == 3 && last[2].contains(" user=\(thirdId) "), "\(last)")
        #expect(follower.isRunning)
    }
}
