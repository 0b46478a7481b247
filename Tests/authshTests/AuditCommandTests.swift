import Foundation
import Testing

/// `authsh audit` reads the audit log of a data directory: what a script did, oldest first,
/// filtered, as text or JSON lines.
@Suite struct AuditCommandTests {
    @Test func readsWhatAScriptDid() throws {
        let data = try Binary.temporaryDirectory()
        let script = #"local u = login(credentials.anonymous()); print(u.id); register{email = "audit@example.com", password = "password1"}"#
        let run = try Binary.run(["--data", data, "-e", script])
        #expect(run.status == 0, "\(run.stderr)")
        let userId = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let text = try Binary.run(["audit", "--data", data + "/server"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(text.stdout)")
        #expect(lines.first?.contains(" local login success user=\(userId) provider=anon-user address=127.0.0.1") == true, "\(text.stdout)")
        #expect(lines.last?.contains(" local register success provider=local-userpass") == true)

        let json = try Binary.run(["audit", "--data", data + "/server", "--json", "--event", "register"])
        let objects = json.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 1 && objects.first?["event"] as? String == "register" && objects.first?["outcome"] as? String == "success")
        let mine = try Binary.run(["audit", "--data", data + "/server", "--user", userId, "--since", "1h"])
        #expect(mine.stdout.split(separator: "\n").count == 1)

        #expect(try Binary.run(["audit", "--data", data + "/nowhere"]).status == 1)
        #expect(try Binary.run(["audit", "--bogus"]).status == 64)
    }
}
