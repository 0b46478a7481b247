// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `authsh test`: busted spec files, each in its own process against a fresh embedded server,
/// reported as one run in every format.
@Suite(.binary, .timeLimit(.minutes(5))) struct TestCommandTests {
    /// A spec directory with a passing, a failing, an erroring and a pending test, and two
    /// files that register the same email (each passes only if the other's user is not there).
    static func specDirectory() throws -> String {
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/spec/nested", withIntermediateDirectories: true)
        try Binary.write(
            """
            describe("flows", function()
              it("logs in anonymously", function()
                local user = login(credentials.anonymous())
                assert.is_string(user.id)
              end)
              it("fails", function() assert.are.same(1, 2) end)
              it("errors", function() error("boom") end)
              pending("is pending")
            end)
            """, to: dir + "/spec/flows_spec.lua")
        for name in ["spec/one_spec.lua", "spec/nested/two_spec.lua"] {
            try Binary.write(
                """
                describe("isolation", function()
                  it("registers an email no other file has", function()
                    register("same@example.com", "password1")
                  end)
                end)
                """, to: dir + "/" + name)
        }
        // Not a spec: its name does not match.
        try Binary.write(#"error("helper.lua is not a spec")"#, to: dir + "/spec/helper.lua")
        return dir
    }

    @Test func theTerminalReportCountsEveryFileAndExitsOneOnAFailure() async throws {
        let dir = try Self.specDirectory()
        let r = try await Binary.run(["test"], directory: dir)
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 3 files, 3 successes / 1 failure / 1 error / 1 pending\n"), "\(r.stdout)")
        // Each file's busted output, in file order.
        let flows = try #require(r.stdout.range(of: "spec/flows_spec.lua:6: Expected objects to be the same."))
        let boom = try #require(r.stdout.range(of: "spec/flows_spec.lua:7: boom"))
        #expect(flows.lowerBound < boom.lowerBound)
        #expect(!r.stdout.contains("AccountNameInUse"), "one file's user leaked into another's server")
    }

    /// The same spec file passes under `authsh test` and `authsh test --firebase`: each file's
    /// embedded server answers as the project, through Firebase's API.
    @Test func oneSpecPassesOverBothProtocols() async throws {
        let dir = try Binary.temporaryDirectory()
        try Binary.write(
            """
            describe("a reset", function()
              it("signs up, resets by mail and signs in with the new password", function()
                register("both@example.com", "password1")
                confirm(outbox{ email = "both@example.com", kind = "confirm" }[1])
                local user = login(credentials.emailPassword("both@example.com", "password1"))
                app.emailPasswordAuth:sendResetPasswordEmail("both@example.com")
                local mail = outbox{ email = "both@example.com", kind = "reset" }
                resetPassword{ token = mail[#mail].token, tokenId = mail[#mail].tokenId, password = "password2" }
                assert.are.equal(user, login(credentials.emailPassword("both@example.com", "password2")))
                assert.auth_error("InvalidPassword", function()
                  login(credentials.emailPassword("both@example.com", "password1"))
                end)
                print(app.id)
              end)
            end)
            """, to: dir + "/reset_spec.lua")
        for (options, app) in [([String](), "local"), (["--firebase", "demo-project"], "demo-project")] {
            let r = try await Binary.run(["test", "-o", "plainTerminal"] + options, directory: dir)
            #expect(r.status == 0, "\(options): \(r.stdout)\n\(r.stderr)")
            #expect(r.stdout.contains(app + "\n") && r.stdout.hasSuffix("1 success / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
        }
    }

    @Test func onlyPassingSpecsExitZero() async throws {
        let dir = try Self.specDirectory()
        let r = try await Binary.run(["test", "spec/one_spec.lua", "spec/nested"], directory: dir)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 2 files, 2 successes / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
        // busted's filters pass through.
        let filtered = try await Binary.run(["test", "--filter", "logs in", "spec/flows_spec.lua"], directory: dir)
        #expect(filtered.status == 0, "\(filtered.stdout)")
        #expect(filtered.stdout.hasSuffix("authsh test: 1 file, 1 success / 0 failures / 0 errors / 0 pending\n"), "\(filtered.stdout)")
    }

    @Test func junitIsOneDocumentWithASuitePerFile() async throws {
        let dir = try Self.specDirectory()
        let r = try await Binary.run(["test", "-o", "junit", "-j", "2"], directory: dir)
        #expect(r.status == 1)
        let document = try XMLDocument(xmlString: r.stdout)
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        #expect(root.attribute(forName: "tests")?.stringValue == "6")
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        #expect(root.attribute(forName: "errors")?.stringValue == "1")
        #expect(root.attribute(forName: "skip")?.stringValue == "1")
        let suites = root.elements(forName: "testsuite")
        #expect(
            suites.compactMap { $0.attribute(forName: "name")?.stringValue } == [
                "spec/flows_spec.lua", "spec/nested/two_spec.lua", "spec/one_spec.lua",
            ])
        let cases = suites.flatMap { $0.elements(forName: "testcase") }
        #expect(cases.count == 6)
        #expect(cases.filter { !$0.elements(forName: "failure").isEmpty }.count == 1)
        #expect(cases.filter { !$0.elements(forName: "error").isEmpty }.count == 1)
    }

    @Test func tapNumbersTheWholeRunInOneSequence() async throws {
        let dir = try Self.specDirectory()
        let r = try await Binary.run(["test", "-o", "tap"], directory: dir)
        #expect(r.status == 1)
        let results = r.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") || $0.hasPrefix("not ok ") }
        #expect(results.count == 6, "\(r.stdout)")
        for (n, line) in results.enumerated() {
            #expect(line.hasPrefix("ok \(n + 1) ") || line.hasPrefix("not ok \(n + 1) "), "\(line)")
        }
        #expect(results.filter { $0.hasPrefix("not ok") }.count == 2)
        #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("1..") } == ["1..6"])
    }

    @Test func jsonJoinsTheFilesResults() async throws {
        let dir = try Self.specDirectory()
        let r = try await Binary.run(["test", "-o", "json"], directory: dir)
        #expect(r.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        #expect((object["successes"] as? [Any])?.count == 3)
        #expect((object["failures"] as? [Any])?.count == 1)
        #expect((object["errors"] as? [Any])?.count == 1)
        #expect((object["pendings"] as? [Any])?.count == 1)
    }

    @Test func oneJobAndTwoGiveTheSameResults() async throws {
        let dir = try Self.specDirectory()
        let one = try await Binary.run(["test", "-o", "tap", "-j", "1"], directory: dir)
        let two = try await Binary.run(["test", "-o", "tap", "-j", "2"], directory: dir)
        let results = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("ok ") || $0.hasPrefix("not ok ") } }
        #expect(one.status == two.status)
        #expect(results(one.stdout) == results(two.stdout))
    }

    @Test func badUsageExits64AndNoSpecsExitsOne() async throws {
        let dir = try Self.specDirectory()
        for arguments in [
            ["test", "-j", "0"], ["test", "-o", "xml"], ["test", "--frobnicate"], ["test", "missing_spec.lua"], ["test", "-p", "["],
        ] {
            let r = try await Binary.run(arguments, directory: dir)
            #expect(r.status == 64, "\(arguments): \(r.stderr)")
            #expect(r.stderr.hasPrefix("authsh test: "), "\(arguments): \(r.stderr)")
        }
        let empty = try Binary.temporaryDirectory()
        let none = try await Binary.run(["test"], directory: empty)
        #expect(none.status == 1 && none.stderr.contains("no spec files found"), "\(none.stderr)")
    }
}

extension TestCommandTests {
    /// The spec file of docs/testing-auth-flows.md passes as the document shows it.
    @Test func theDocumentsSpecFilePasses() async throws {
        let r = try await Self.runDocumentSpec("docs/testing-auth-flows.md", file: "signup_spec.lua")
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 1 file, 2 successes / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
    }

    /// Runs the ```lua block of `document` that starts `-- spec/FILE` as that spec file, with
    /// `options` before it.
    static func runDocumentSpec(_ document: String, file: String, options: [String] = []) async throws -> Binary.Result {
        let text = try String(contentsOfFile: Binary.repository + "/" + document, encoding: .utf8)
        let start = "```lua\n-- spec/" + file
        let block = try #require(text.ranges(of: start).first.map { text[$0.lowerBound...].dropFirst("```lua\n".count) })
        let end = try #require(block.firstRange(of: "```"))
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/spec", withIntermediateDirectories: true)
        try Binary.write(String(block[..<end.lowerBound]), to: dir + "/spec/" + file)
        return try await Binary.run(["test"] + options, directory: dir)
    }
}

extension TestCommandTests {
    /// An auth error is luassert's to match: by code, by code and message, by a table of its
    /// fields, and printed with its code, message and status when an assertion fails.
    @Test func authErrorsAreMatchedAndPrintedByLuassert() async throws {
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/spec", withIntermediateDirectories: true)
        try Binary.write(
            """
            describe("auth errors", function()
              setup(function() register("kim@example.com", "password1") end)
              local function wrong() login(credentials.emailPassword("kim@example.com", "wrong")) end
              it("by code", function() assert.auth_error("InvalidPassword", wrong) end)
              it("has_error by code", function() assert.has_error(wrong, "InvalidPassword") end)
              it("has_error by code and message", function()
                assert.has_error(wrong, "InvalidPassword: invalid username/password")
              end)
              it("has_error by fields", function() assert.has_error(wrong, { code = "InvalidPassword", status = 401 }) end)
              it("has_no_error", function() assert.has_no_error(function() end) end)
              it("other errors as before", function() assert.has_error(function() error("boom") end, "boom") end)
              it("a wrong code fails", function() assert.auth_error("AccountNameInUse", wrong) end)
              it("a wrong status fails", function() assert.has_error(wrong, { status = 403 }) end)
              it("no error fails", function() assert.auth_error("InvalidPassword", function() end) end)
              it("names its request", function()
                local ok, err = pcall(wrong)
                assert.are.equal("POST /api/client/v2.0/app/local/auth/providers/local-userpass/login", err.request)
              end)
              it("uncaught, says what failed", function() wrong() end)
            end)
            """, to: dir + "/spec/auth_spec.lua")
        let r = try await Binary.run(["test"], directory: dir)
        #expect(r.status == 1)
        #expect(r.stdout.hasSuffix("authsh test: 1 file, 7 successes / 3 failures / 1 error / 0 pending\n"), "\(r.stdout)")
        // An uncaught one: where, code, message, status and the request (never a password).
        #expect(
            r.stdout.contains(
                "spec/auth_spec.lua:3: InvalidPassword: invalid username/password "
                    + "(HTTP 401, POST /api/client/v2.0/app/local/auth/providers/local-userpass/login)"), "\(r.stdout)")
        #expect(!r.stdout.contains("password1") && !r.stdout.contains("\"wrong\""))
        #expect(
            r.stdout.contains(
                "Expected an auth error AccountNameInUse, but got:\n(AuthError) InvalidPassword: invalid username/password (HTTP 401)"),
            "\(r.stdout)")
        #expect(r.stdout.contains("Expected an auth error InvalidPassword, but got:\n(no error)"), "\(r.stdout)")
    }
}

extension TestCommandTests {
    /// `auth.test`: confirmed users made in one call, the last mail, a wipe, the clock.
    @Test func fixturesMakeUsersAndReadMail() async throws {
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/spec", withIntermediateDirectories: true)
        try Binary.write(
            """
            describe("fixtures", function()
              it("makes confirmed users", function()
                local user, password = auth.test.user{ email = "a@example.com" }
                assert.are.equal("a@example.com", user.profile.email)
                assert.are.equal("password1", password)
                -- Confirmed: the password logs in again.
                login(credentials.emailPassword("a@example.com", "password1"))
                local list = auth.test.users(3)
                assert.are.equal(3, #list)
                assert.are_not.equal(list[1].id, list[2].id)
                assert.are.equal("a@example.com", auth.test.lastMail("a@example.com", "confirm").to)
                assert.is_nil(auth.test.lastMail("nobody@example.com"))
              end)
              it("wipes and moves the clock", function()
                auth.test.wipe()
                assert.auth_error("InvalidPassword", function()
                  login(credentials.emailPassword("a@example.com", "password1"))
                end)
                local before = auth.test.advanceClock(0).now
                assert.are.equal(before + 3600, auth.test.advanceClock(3600).now)
              end)
            end)
            """, to: dir + "/spec/fixtures_spec.lua")
        let r = try await Binary.run(["test"], directory: dir)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 1 file, 2 successes / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
    }
}

extension TestCommandTests {
    /// `auth.dev.plugin`: one plugin function in its real sandbox, with the user, values,
    /// clock, store values and HTTP answers the test gives; what it did comes back, and none of
    /// it reaches the server (no mail in the outbox, no key in the store).
    @Test func aPluginUnitTestSeesItsMailLogStoreAndAStubbedHTTPAnswer() async throws {
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/spec", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/plugins", withIntermediateDirectories: true)
        try Binary.write(
            """
            local m = {}
            function m.welcome(details, extra)
              context.log("welcoming", details.email)
              context.email.send{ to = details.email, subject = "Welcome", body = "Hello " .. (context.values.greeting or "there") }
              local n = (context.store.get("count") or 0) + 1
              context.store.set("count", n)
              local r = context.http.post{ url = "https://hooks.example.com/new", body = { email = details.email } }
              if context.user then context.users.setCustomData(context.user.id, { welcomed = true }) end
              return { count = n, status = r.status, echoed = r.body, now = context.now(), extra = extra }
            end
            function m.readCount() return context.store.get("count") end
            function m.chatty() for i = 1, 5000 do context.log("line", i) end end
            function m.boom() error("no such thing") end
            return m
            """, to: dir + "/plugins/signup.lua")
        try Binary.write(
            """
            describe("welcome", function()
              it("runs with the test's world and says what it did", function()
                auth.dev.config{ httpAllowList = { "https://hooks.example.com" } }
                local run = auth.dev.plugin("welcome", { { email = "ann@example.com" }, 7 }, {
                  user = { id = "u1" }, values = { greeting = "friend" }, now = 1000, store = { count = 41 },
                  http = { { method = "POST", url = "https://hooks.example.com/new", status = 202, body = "ok" } },
                })
                assert.is_nil(run.error)
                assert.are.same({ count = 42, status = 202, echoed = "ok", now = 1000, extra = 7 }, run.result)
                assert.are.same({ "welcoming\\tann@example.com" }, run.logs)
                assert.are.same({ { to = "ann@example.com", subject = "Welcome", body = "Hello friend" } }, run.mails)
                assert.are.same({ { key = "count", value = 42 } }, run.storeWrites)
                assert.are.same({ count = 42 }, run.store)
                assert.are.same({ { userId = "u1", customData = { welcomed = true } } }, run.customData)
                assert.are.equal(1, #run.http)
                assert.are.equal("POST", run.http[1].method)
                assert.are.equal('{"email":"ann@example.com"}', run.http[1].body)
                -- Nothing reached the server: no mail, no stored value.
                assert.are.equal(0, #auth.dev.outbox())
                assert.is_nil(auth.dev.plugin("readCount").result)
              end)
              it("reports failures as the run's", function()
                local run = auth.dev.plugin("boom")
                assert.are.equal("FunctionExecutionError", run.error.code)
                assert.matches("no such thing", run.error.message)
                local unanswered = auth.dev.plugin("welcome", { { email = "a@example.com" } })
                assert.matches("the test gave no answer for POST https://hooks.example.com/new", unanswered.error.message)
                assert.are.equal(1, #unanswered.mails)
                auth.dev.config{ httpAllowList = { "https://other.example.com" } }
                local refused = auth.dev.plugin("welcome", { { email = "a@example.com" } }, {
                  http = { { url = "https://hooks.example.com/new" } },
                })
                assert.matches("not in the app's httpAllowList", refused.error.message)
                assert.auth_error("FunctionNotFound", function() auth.dev.plugin("nope") end)
              end)
              it("keeps at most 1,000 entries a list", function()
                local run = auth.dev.plugin("chatty")
                assert.are.equal(1000, #run.logs)
                assert.are.equal(4000, run.dropped)
              end)
            end)
            """, to: dir + "/spec/plugin_spec.lua")
        let r = try await Binary.run(["test", "--plugins", dir + "/plugins"], directory: dir)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 1 file, 3 successes / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
    }
}

extension TestCommandTests {
    /// The plugin unit test of docs/plugins.md passes against the repository's reset plugin.
    @Test func thePluginDocumentsSpecFilePasses() async throws {
        let r = try await Self.runDocumentSpec("docs/plugins.md", file: "reset_spec.lua", options: ["--plugins", Binary.repository + "/plugins"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 1 file, 2 successes / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
    }
}

extension TestCommandTests {
    /// `--server URL`: every file runs against that server, so what one file registers the next
    /// finds there (no isolation: the specs' business).
    @Test func withServerEveryFileTalksToThatServer() async throws {
        let server = try await ServerProcess(["--dev"])
        let dir = try Binary.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/spec", withIntermediateDirectories: true)
        try Binary.write(
            #"it("registers", function() register("shared@example.com", "password1") end)"#, to: dir + "/spec/a_spec.lua")
        try Binary.write(
            #"it("finds it taken", function() assert.auth_error("AccountNameInUse", function() register("shared@example.com", "password1") end) end)"#,
            to: dir + "/spec/b_spec.lua")
        let r = try await Binary.run(["test", "-j", "1", "--server", server.origin], directory: dir)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.hasSuffix("authsh test: 2 files, 2 successes / 0 failures / 0 errors / 0 pending\n"), "\(r.stdout)")
    }
}
