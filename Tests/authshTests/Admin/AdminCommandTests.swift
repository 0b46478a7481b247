// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `authsh admin`, the real binary: against a running server's admin API with the key from
/// the environment, and directly on a data directory.
@Suite(.binary, .timeLimit(.minutes(5))) struct AdminCommandTests {
    static let key = "cli-admin-key-0123456789abcdef0123456789"

    static func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func againstAServerAndDirectlyOnItsData() async throws {
        let directory = try Binary.temporaryDirectory()
        let config = directory + "/config.json"
        try Data(
            #"""
            {"adminKeys": [{"name": "ops", "key": {"env": "TEST_ADMIN_KEY"}}],
             "apps": [{"id": "local", "rateLimits": {"enabled": false},
                       "providers": {"anon-user": {}, "local-userpass": {"autoConfirm": true}}}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: config))
        setenv("TEST_ADMIN_KEY", Self.key, 1)
        let data = directory + "/data"
        let (server, origin) = try await ServerProcess.spawn(["--config", config, "--data", data], log: directory + "/serve.log")
        defer { server.stop() }
        let http = JSONHTTP(origin: origin)
        let login = "/api/client/v2.0/app/local/auth/providers/local-userpass/login"
        #expect(
            try await http.send(
                .POST, "/api/client/v2.0/app/local/auth/providers/local-userpass/register",
                json: #"{"email":"cli@example.com","password":"Pass-word-1"}"#
            ).status == 201)
        let first = try await http.send(.POST, login, json: #"{"username":"cli@example.com","password":"Pass-word-1"}"#)
        let id = try #require(first["user_id"])
        _ = try await http.send(.POST, "/api/client/v2.0/app/local/auth/providers/anon-user/login", json: "{}")

        // Through the server's admin API.
        let env = ["AUTHSH_ADMIN_KEY": Self.key]
        let list = try await Binary.run(["admin", "--server", origin, "--json", "users", "list", "--email", "cli@"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(Self.lines(list.stdout).map { $0["id"] as? String } == [id])
        let all = try await Binary.run(["admin", "--server", origin, "users", "list", "--all", "--limit", "1"], environment: env)
        #expect(all.stdout.split(separator: "\n").count == 2, "two users, a page each: \(all.stdout)")
        let disable = try await Binary.run(["admin", "--server", origin, "users", "disable", id], environment: env)
        #expect(disable.status == 0 && disable.stdout == "disabled \(id)\n", "\(disable.stderr)")
        let refused = try await http.send(.POST, login, json: #"{"username":"cli@example.com","password":"Pass-word-1"}"#)
        #expect(refused.status == 401 && refused.text.contains("UserDisabled"))

        let wrong = try await Binary.run(["admin", "--server", origin, "users", "list"], environment: ["AUTHSH_ADMIN_KEY": Self.key + "x"])
        #expect(wrong.status == 1 && wrong.stderr.contains("InvalidAdminKey"), "\(wrong.stderr)")
        let none = try await Binary.run(["admin", "--server", origin, "users", "list"], environment: ["AUTHSH_ADMIN_KEY": ""])
        #expect(none.status == 64 && none.stderr.contains("AUTHSH_ADMIN_KEY"))
        server.stop()

        // Directly on the data directory, the server stopped.
        let shown = try await Binary.run(["admin", "--data", data, "--json", "users", "show", id])
        #expect(shown.status == 0, "\(shown.stderr)")
        let user = try #require(Self.lines(shown.stdout).first)
        #expect(user["disabled"] as? Bool == true)
        let audit = user["audit"] as? [[String: Any]] ?? []
        #expect(audit.contains { $0["event"] as? String == "user_disabled" && $0["actor"] as? String == "admin:ops" })
        #expect(try await Binary.run(["admin", "--data", data, "users", "enable", id]).status == 0)
        let enabled = try await Binary.run(["admin", "--data", data, "users", "list", "--state", "enabled"])
        #expect(enabled.stdout.split(separator: "\n").count == 2, "\(enabled.stdout)")
        let log = try await Binary.run(["audit", "--data", data, "--event", "user_enabled"])
        #expect(log.stdout.contains("actor=admin:authsh-admin") && log.stdout.contains(id), "\(log.stdout)")

        #expect(try await Binary.run(["admin", "--data", data, "users", "delete", id]).status == 0)
        let gone = try await Binary.run(["admin", "--data", data, "users", "show", id])
        #expect(gone.status == 1 && gone.stderr.contains("UserNotFound"))
    }

    /// Values a client chose (an external id, a name) reach the operator's terminal as text:
    /// ESC, BEL, C1 controls and bidi overrides are shown as escapes in `users list` and
    /// `users show`, as text and as JSON, never sent as they are.
    @Test func clientChosenStringsCannotActOnTheTerminal() async throws {
        let directory = try Binary.temporaryDirectory()
        let plugins = directory + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try Data("return function(p) return { id = p.id, name = p.name } end".utf8).write(to: URL(fileURLWithPath: plugins + "/login.lua"))
        let config = directory + "/config.json"
        try Data(#"{"apps": [{"id": "local", "providers": {"custom-function": {"enabled": true}}}]}"#.utf8).write(to: URL(fileURLWithPath: config))
        let data = directory + "/data"
        let (server, origin) = try await ServerProcess.spawn(
            ["--config", config, "--data", data, "--plugins", plugins],
            log: directory + "/serve.log")
        defer { server.stop() }
        let hostile = #"\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202egnp.exe"#
        let login = try await JSONHTTP(origin: origin).send(
            .POST, "/api/client/v2.0/app/local/auth/providers/custom-function/login",
            json: #"{"id": "x\#(hostile)", "name": "n\#(hostile)"}"#)
        let id = try #require(login["user_id"], "\(login.text)")
        server.stop()
        let raw: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}"]
        for arguments in [["users", "list"], ["--json", "users", "list"], ["users", "show", id], ["--json", "users", "show", id]] {
            let run = try await Binary.run(["admin", "--data", data] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(!run.stdout.unicodeScalars.contains { raw.contains($0) }, "\(arguments) printed a control: \(run.stdout.debugDescription)")
            if arguments.contains("show") {
                #expect(run.stdout.contains(arguments.first == "--json" ? #"\u001b"# : #"\u{001B}"#), "\(arguments): \(run.stdout)")
            }
        }
        // JSON stays JSON, with the same strings.
        let json = try await Binary.run(["admin", "--data", data, "--json", "users", "show", id])
        let user = try #require(Self.lines(json.stdout).first)
        let identities = user["identities"] as? [[String: Any]] ?? []
        #expect(identities.first?["externalId"] as? String == "x\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{202E}gnp.exe")
    }

    /// `export` and `import` directly on data directories: a private file, whole or not at all,
    /// read back into an empty directory, twice.
    /// `users factors` lists a user's second factors and `users remove-totp` removes TOTP, for
    /// someone who lost their phone: afterwards the password alone logs in.
    @Test func aUsersFactorsAreListedAndTOTPRemoved() async throws {
        let directory = try Binary.temporaryDirectory()
        let seeded = try await Binary.script(
            #"""
            register{ email = "lost@example.com", password = "Pass-word-1" }
            confirm(outbox{ email = "lost@example.com", kind = "confirm" }[1])
            local user = login(credentials.emailPassword("lost@example.com", "Pass-word-1"))
            local enrolment = user:enrollTOTP()
            user:confirmTOTP(auth.totp(enrolment.secret, auth.dev.advanceClock(0).now))
            print(user.id)
            """#, data: directory)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let id = seeded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let data = directory + "/server"
        let listed = try await Binary.run(["admin", "--data", data, "users", "factors", id])
        #expect(listed.status == 0 && listed.stdout == "totp  confirmed\nrecovery codes left: 10\n", "\(listed.stdout)\(listed.stderr)")
        let removed = try await Binary.run(["admin", "--data", data, "users", "remove-totp", id])
        #expect(removed.status == 0 && removed.stdout == "removed the TOTP factor of \(id)\n", "\(removed.stderr)")
        let none = try await Binary.run(["admin", "--data", data, "--json", "users", "factors", id])
        #expect(none.stdout.contains(#""factors":[]"#), "\(none.stdout)")
        let again = try await Binary.run(["admin", "--data", data, "users", "remove-totp", id])
        #expect(again.status == 1 && again.stderr.contains("MFAFactorNotFound"), "\(again.stderr)")
        let log = try await Binary.run(["audit", "--data", data, "--event", "totp_removed"])
        #expect(log.stdout.contains(id) && log.stdout.contains("actor=admin:"), "\(log.stdout)")
        let login = try await Binary.script(
            #"print(login(credentials.emailPassword("lost@example.com", "Pass-word-1")).id)"#, data: directory)
        #expect(login.status == 0 && login.stdout.contains(id), "the password alone logs in again: \(login.stderr)")
    }

    @Test func exportAndImportBetweenDataDirectories() async throws {
        let directory = try Binary.temporaryDirectory()
        let source = directory + "/a", target = directory + "/b", file = directory + "/users.ndjson"
        let seeded = try await Binary.script(
            #"""
            for i = 1, 5 do login(credentials.anonymous{ reuse = false }) end
            app.emailPasswordAuth:registerUser("move@example.com", "Pass-word-1")
            print("seeded")
            """#, data: source)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let data = source + "/server"
        let export = try await Binary.run(["admin", "--data", data, "export", file])
        #expect(export.status == 0 && export.stdout.contains("exported"), "\(export.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "an export holds password hashes")
        let toStdout = try await Binary.run(["admin", "--data", data, "export", "-"])
        #expect(toStdout.stdout == (try String(contentsOfFile: file, encoding: .utf8)))

        // A check first: what would come in, and nothing written.
        let checked = try await Binary.run(["admin", "--data", target, "import", "--check", file])
        #expect(checked.status == 0 && checked.stdout.hasPrefix("would import "), "\(checked.stdout)\(checked.stderr)")
        #expect(try await Binary.run(["admin", "--data", target, "export", "-"]).stdout.hasPrefix(#"{"end":{"users":0,"accounts":0}}"#))
        let first = try await Binary.run(["admin", "--data", target, "--json", "import", file])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try #require(Self.lines(first.stdout).first)
        #expect((report["imported"] as? Int ?? 0) >= 2 && report["rejectedCount"] as? Int == 0, "\(first.stdout)")
        #expect(checked.stdout.hasPrefix("would import \(report["imported"] as? Int ?? -1), skipped 0"), "the check said what came in")
        let second = try await Binary.run(["admin", "--data", target, "import", file])
        #expect(second.stdout.hasPrefix("imported 0,"), "\(second.stdout)")
        #expect(try await Binary.run(["admin", "--data", target, "export", "-"]).stdout == toStdout.stdout)

        try Binary.write(
            "{\"id\":\"bad\"}\n" + toStdout.stdout.split(separator: "\n").dropLast().joined(separator: "\n") + "\n",
            to: directory + "/bad.ndjson")
        let refused = try await Binary.run(["admin", "--data", directory + "/c", "import", directory + "/bad.ndjson"])
        #expect(refused.status == 1 && refused.stderr.contains("line 1:") && refused.stderr.contains("nothing was imported"), "\(refused.stderr)")
        let wouldRefuse = try await Binary.run(["admin", "--data", directory + "/c", "import", "--check", directory + "/bad.ndjson"])
        #expect(
            wouldRefuse.status == 1 && wouldRefuse.stdout.contains("rejected 1") && wouldRefuse.stdout.contains("line 1:"), "\(wouldRefuse.stdout)")
        let partly = try await Binary.run(["admin", "--data", directory + "/c", "import", "--continue-on-error", directory + "/bad.ndjson"])
        #expect(partly.status == 0 && partly.stdout.contains("rejected 1") && partly.stdout.contains("line 1:"), "\(partly.stdout)")
    }

    @Test func badUsage() async throws {
        #expect(try await Binary.run(["admin"]).status == 64)
        #expect(try await Binary.run(["admin", "users", "frobnicate", "x"]).status == 64)
        #expect(try await Binary.run(["admin", "--server", "example.com", "users", "list"]).status == 64)
        // The admin key never goes out in clear unless asked to.
        let clear = try await Binary.run(
            ["admin", "--server", "http://192.0.2.1:9090", "users", "list"], environment: ["AUTHSH_ADMIN_KEY": Self.key])
        #expect(
            clear.status == 64 && clear.stderr.contains("http://192.0.2.1:9090 is not this machine") && clear.stderr.contains("--allow-http"),
            "\(clear.stderr)")
        #expect(try await Binary.run(["admin", "users", "list", "--created-after", "last tuesday"]).status == 64)
        let missing = try await Binary.run(["admin", "--data", try Binary.temporaryDirectory() + "/none", "users", "list"])
        #expect(missing.status == 1 && missing.stderr.contains("no database"))
        // Each command's arguments, checked before anything is opened.
        for args in [
            ["admin", "users"], ["admin", "users", "show"], ["admin", "users", "show", "a", "b"], ["admin", "export"],
            ["admin", "users", "list", "--limit"], ["admin", "--app", "", "users", "list"], ["admin", "import", "f", "--frob"],
        ] {
            let r = try await Binary.run(args)
            #expect(r.status == 64 && r.stderr.contains("usage: authsh admin"), "\(args): \(r.status) \(r.stderr)")
        }
        let help = try await Binary.run(["admin", "--help"])
        #expect(help.status == 0 && help.stdout.contains("users list") && help.stdout.contains("AUTHSH_ADMIN_KEY"), "\(help.stdout)")
        // A command's --help is that command's screen: its options, not the others'.
        let listHelp = try await Binary.run(["admin", "users", "list", "--help"])
        #expect(
            listHelp.status == 0 && listHelp.stdout.contains("--created-after") && listHelp.stdout.contains("One page of users"), "\(listHelp.stdout)"
        )
        #expect(!listHelp.stdout.contains("continue-on-error"), "\(listHelp.stdout)")
    }
}

/// `auth.admin{}` in a batch script: the embedded server's admin API with no key to give.
@Suite(.binary, .timeLimit(.minutes(5))) struct AdminLuaTests {
    @Test func theAdminKeyGoesOutInClearOnlyWhenAsked() async throws {
        let r = try await Binary.script(
            #"""
            local ok, err = pcall(auth.admin, { server = "http://192.0.2.1:9090", key = "k" })
            print(ok, err)
            print(pcall(auth.admin, { server = "http://127.0.0.1:9", key = "k" }))
            print(pcall(auth.admin, { server = "https://auth.example.com", key = "k" }))
            print(pcall(auth.admin, { server = "http://192.0.2.1:9090", key = "k", allowHTTP = true }))
            """#, data: try Binary.temporaryDirectory())
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.count == 4 && lines[0].hasPrefix("false\t") && lines[0].contains("http://192.0.2.1:9090 is not this machine")
                && lines[0].contains("allowHTTP = true"), "\(r.stdout)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("true\tAdmin") }, "\(r.stdout)")
    }

    @Test func seedAndInspectUsersFromAScript() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            #"""
            local a = auth.app()
            for i = 1, 3 do
              a.emailPasswordAuth:registerUser("seed" .. i .. "@example.com", "Pass-word-" .. i)
            end
            local admin = auth.admin()
            admin:confirm("seed1@example.com")
            local ok, err = pcall(function() return admin:confirm("nobody@example.com") end)
            print("confirm nobody", ok, err.code)
            local user = login(credentials.emailPassword("seed1@example.com", "Pass-word-1"))
            local listed = admin:users{email = "seed1@"}
            print("listed", #listed, listed[1].id == user.id)
            admin:setCustomData(user.id, {plan = "pro"})
            print("custom", admin:user(user.id).customData.plan)
            admin:disable(user.id)
            print("disabled", #admin:users{state = "disabled"})
            local ok2, err2 = pcall(login, credentials.emailPassword("seed1@example.com", "Pass-word-1"))
            print("login", ok2, err2.code)
            admin:enable(user.id)
            print("revoked", admin:revoke(user.id))
            admin:delete(user.id)
            print("after delete", #admin:users{})
            local ok3, err3 = pcall(auth.admin, {server = "http://127.0.0.1:1"})
            print("no key", ok3, tostring(err3):find("admin key") ~= nil)
            local file = os.tmpname()
            local written = admin:export(file)
            print("exported", written.users, written.accounts)
            local report = admin:import(file)
            print("imported", report.imported, report.skipped)
            os.remove(file)
            """#, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                confirm nobody\tfalse\tUserNotFound
                listed\t1\ttrue
                custom\tpro
                disabled\t1
                login\tfalse\tUserDisabled
                revoked\t1
                after delete\t0
                no key\tfalse\ttrue
                exported\t0\t2
                imported\t0\t2

                """, "\(r.stdout)")
    }

    /// Directly on a database the command runs the admin API alone: none of the server's
    /// background work, whose sweep would delete audit events older than the default retention
    /// (whatever the real server's config keeps).
    @Test func directlyOnADatabaseNothingIsSwept() async throws {
        let data = try Binary.temporaryDirectory()
        let run = try await Binary.run(["--data", data, "-e", "login(credentials.anonymous())"])
        #expect(run.status == 0, "\(run.stderr)")
        let database = data + "/server/authsh.sqlite"
        let insert = try await Binary.run(
            [
                "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute("INSERT INTO audit_events (time, app_id, event, outcome) VALUES (86400, 'local', 'login', 'success')")
                db.commit()
                """, database,
            ], executable: "/usr/bin/python3")
        #expect(insert.status == 0, "\(insert.stderr)")
        let list = try await Binary.run(["admin", "--data", data + "/server", "users", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        let old = try await Binary.run(["audit", "--data", data + "/server", "--json"])
        #expect(old.stdout.contains("1970-01-02T00:00:00.000Z"), "the old event was swept: \(old.stdout)")
    }
}
