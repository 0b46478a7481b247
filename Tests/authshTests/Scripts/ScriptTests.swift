// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The Lua API run by the built binary in batch mode against the embedded server: every verb,
/// the error paths (error objects with code, status and position; a server that cannot start;
/// bad command lines), concurrency, persistence. (The recipes cover the long flows.)
@Suite(.binary, .timeLimit(.minutes(5))) struct ScriptTests {
    @Test func theVerbsDriveTheEmbeddedServer() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            assert(whoami() == nil and #users() == 0, "a fresh data directory has no users")
            local guest = login(credentials.anonymous())
            assert(guest.isAnonymous and guest.state == "loggedIn" and whoami() == guest)
            assert(login(credentials.anonymous()) == guest, "anonymous{reuse = true} reuses the logged-in guest")
            register{ email = "neo@example.com", password = "trinity1" }
            local mail = outbox{ email = "neo@example.com", kind = "confirm" }
            assert(#mail == 1 and mail[1].to == "neo@example.com" and mail[1].link:find("token=", 1, true))
            confirm(mail[1])
            local linked = linkIdentity(credentials.emailPassword("neo@example.com", "trinity1"))
            assert(linked == guest and not guest.isAnonymous)
            assert(guest.identities[1].providerType == "anon-user" and guest.identities[2].providerType == "local-userpass")
            assert(guest.profile.email == "neo@example.com")
            local other = login(credentials.customFunction{ username = "morpheus" })
            assert(whoami() == other and other ~= guest and #users() == 2)
            assert(other.functions.greet("Neo") == app.currentUser:callFunction("greet", "Neo"))
            print(other.functions.sum(2, 40), math.type(other.functions.sum(2, 40)))
            assert(other.functions.visit() == 1 and other:refreshCustomData().visits == 1 and other.customData.visits == 1)
            assert(switchUser(guest.id) == guest and whoami() == guest)
            logout()
            assert(guest.state == "loggedOut" and guest.accessToken == nil and whoami() == other)
            local again = login(credentials.emailPassword("neo@example.com", "trinity1"))
            assert(again == guest and guest.state == "loggedIn")
            app.emailPasswordAuth:sendResetPasswordEmail("neo@example.com")
            local reset = outbox{ email = "neo@example.com", kind = "reset" }
            resetPassword{ token = reset[1].token, tokenId = reset[1].tokenId, password = "zion-2199" }
            assert(login(credentials.emailPassword("neo@example.com", "zion-2199")) == guest)
            guest:delete()
            assert(guest.state == "removed" and #users() == 1)
            print(tostring(app), tostring(credentials.emailPassword("neo@example.com", "zion-2199")))
            """, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "42\tinteger\nApp(local, embedded)\tCredentials(local-userpass, neo@example.com)\n")
    }

    /// `auth.app{firebase = PROJECT}` speaks Firebase Auth's API to the embedded server (as to
    /// the Auth emulator): the same users and verbs, Firebase's errors by both names, and what
    /// only App Services has refused naming the protocol.
    @Test func aFirebaseAppSpeaksToTheEmbeddedServer() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            local fb = auth.app{ firebase = "local", persist = false }
            local guest = fb:login(credentials.anonymous())
            assert(guest.isAnonymous and guest.claims.firebase.sign_in_provider == "anonymous")
            fb.emailPasswordAuth:registerUser("fire@example.com", "password1")
            local fire = fb:login(credentials.emailPassword("fire@example.com", "password1"))
            assert(fire ~= guest and fire.profile.email == "fire@example.com" and fire.identities[1].providerType == "local-userpass")
            -- One user base: the App Services app logs the same user in.
            local same = login(credentials.emailPassword("fire@example.com", "password1"))
            assert(same.id == fire.id, same.id .. " " .. fire.id)
            local ok, err = pcall(fb.login, fb, credentials.emailPassword("fire@example.com", "wrong"))
            assert(not ok and err.code == "InvalidPassword" and err.firebaseCode == "auth/invalid-credential", tostring(err))
            ok, err = pcall(fire.callFunction, fire, "greet", "Ada")
            assert(not ok and err.code == "NotInProtocol" and err.message:find("Firebase", 1, true), tostring(err))
            print(fb.id, err.code)
            """, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "local\tNotInProtocol\n")
    }

    /// `authsh --firebase demo-project` with no server named: the embedded server's app is the
    /// project, and the verbs speak Firebase's API to it, the outbox included.
    @Test func firebaseOnTheCommandLineNeedsNoSetup() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            assert(app.id == "demo-project")
            local guest = login(credentials.anonymous())
            assert(guest.claims.aud == "demo-project" and guest.claims.firebase.sign_in_provider == "anonymous", auth.json.encode(guest.claims))
            register{ email = "d@example.com", password = "password1" }
            local user = login(credentials.emailPassword("d@example.com", "password1"))
            app.emailPasswordAuth:sendResetPasswordEmail("d@example.com")
            local mail = outbox{ email = "d@example.com", kind = "reset" }
            assert(#mail == 1, #mail)
            resetPassword{ token = mail[1].token, tokenId = mail[1].tokenId, password = "password2" }
            assert(login(credentials.emailPassword("d@example.com", "password2")) == user)
            print(#users(), user.profile.email)
            """, data: data, options: ["--firebase", "demo-project"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "2\td@example.com\n")
        let bad = try await Binary.run(["--firebase", "demo-project", "--app", "local", "-e", "print(1)"])
        #expect(bad.status == 64 && bad.stderr.contains("--firebase names the app"), "\(bad.stderr)")
        let lonely = try await Binary.run(["--emulator", "127.0.0.1:9099", "-e", "print(1)"])
        #expect(lonely.status == 64 && lonely.stderr.contains("go with --firebase"), "\(lonely.stderr)")
    }

    /// The account names of docs/protocol/identity-providers.md section 7 that the recipes do not run:
    /// unlink, one session ended, the others ended, a password change, app:signInMethods.
    @Test func usersManageTheirIdentitiesAndSessions() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            register{ email = "mo@example.com", password = "first-pass" }
            confirm(outbox{ email = "mo@example.com", kind = "confirm" }[1])
            local here = auth.app{ persist = false }
            local there = auth.app{ persist = false }
            local me = here:login(credentials.emailPassword("mo@example.com", "first-pass"))
            local other = there:login(credentials.emailPassword("mo@example.com", "first-pass"))
            local third = login(credentials.emailPassword("mo@example.com", "first-pass"))
            local sessions = me:sessions()
            assert(#sessions == 3, "three sessions: " .. #sessions)
            local mine = 0
            for _, s in ipairs(sessions) do
              assert(type(s.id) == "string" and math.type(s.created) == "integer" and s.lastUsed >= s.created)
              if s.current then mine = mine + 1 end
            end
            assert(mine == 1, "one session is the caller's")
            -- End the session of `other` (the one that is current for `there`).
            local theirs
            for _, s in ipairs(other:sessions()) do if s.current then theirs = s end end
            me:revokeSession(theirs)
            local ok, err = pcall(other.refreshCustomData, other)
            assert(not ok and err.code == "InvalidSession", "an ended session refreshes no more: " .. tostring(err))
            ok, err = pcall(me.revokeSession, me, theirs.id)
            assert(not ok and err.code == "SessionNotFound" and err.status == 404, tostring(err))
            assert(me:revokeOtherSessions() == 1, "the third session ended")
            assert(#me:sessions() == 1)

            -- A password change checks the old one and ends the other sessions.
            local again = there:login(credentials.emailPassword("mo@example.com", "first-pass"))
            ok, err = pcall(here.emailPasswordAuth.changePassword, here.emailPasswordAuth, { password = "wrong-pass", newPassword = "second-pass" })
            assert(not ok and err.code == "InvalidPassword", tostring(err))
            here.emailPasswordAuth:changePassword{ password = "first-pass", newPassword = "second-pass" }
            ok = pcall(again.refreshCustomData, again)
            assert(not ok, "the other session ended with the password change")
            assert(here:login(credentials.emailPassword("mo@example.com", "second-pass")) == me)

            -- Unlink: an anonymous guest linked to an email can drop either identity, never both.
            local guest = login(credentials.anonymous{ reuse = false })
            register{ email = "gus@example.com", password = "gus-pass-1" }
            confirm(outbox{ email = "gus@example.com", kind = "confirm" }[1])
            linkIdentity(credentials.emailPassword("gus@example.com", "gus-pass-1"))
            assert(guest.identities[2].email == "gus@example.com", "identities carry their email")
            assert(table.concat(app:signInMethods("gus@example.com"), ",") == "local-userpass")
            guest:unlink(guest.identities[2])
            assert(#guest.identities == 1 and #app:signInMethods("gus@example.com") == 0)
            ok, err = pcall(guest.unlink, guest, "anon-user", guest.identities[1].id)
            assert(not ok and err.code == "CannotUnlinkLastIdentity", tostring(err))
            print("ok")
            """, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ok\n", "\(r.stdout)")
    }

    @Test func authErrorsAreObjectsWithCodeStatusAndPosition() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            register{ email = "amy@example.com", password = "secret-1" }
            local ok, err = pcall(function() register{ email = "amy@example.com", password = "secret-1" } end)
            assert(not ok)
            print(err.code, err.status, err.message)
            print(tostring(err))
            print(err.where)
            ok, err = pcall(login, credentials.emailPassword("amy@example.com", "wrong-one"))
            print(err.code, err.status)
            ok, err = pcall(linkIdentity, credentials.emailPassword("amy@example.com", "secret-1"))
            print(err.code, err.message)
            ok, err = pcall(switchUser, "0123456789abcdef01234567")
            print(err.code)
            ok, err = pcall(login, 42)
            print(err)
            ok, err = pcall(register, { email = "x@example.com" })
            print(err)
            ok, err = pcall(function() table.sort({ 2, 1 }, function(a, b) login(credentials.anonymous()) return a < b end) end)
            print(err)
            login(credentials.emailPassword("amy@example.com", "not-her-password"))
            """, data: data)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "AccountNameInUse\t409\tname already in use")
        #expect(lines[1].hasSuffix("scenario.lua:2: AccountNameInUse: name already in use (HTTP 409)"))
        #expect(lines[2].hasSuffix("scenario.lua:2: "))
        #expect(lines[3] == "InvalidPassword\t401")
        #expect(lines[4] == "ClientUserNotLoggedIn\tlinkIdentity: no user is logged in (log in first)")
        #expect(lines[5] == "ClientUserNotFound")
        #expect(lines[6].contains("bad argument #1 to 'login' (Credentials expected, got number)"))
        #expect(lines[7].contains("bad argument #1 to 'register' (field 'password' must be a string, got nil)"))
        #expect(lines[8].contains("cannot yield"))
        // Uncaught: exit 1, the code and message with the script's position, and a traceback.
        #expect(r.stderr.contains("scenario.lua:19: InvalidPassword: invalid username/password (HTTP 401)"))
        #expect(r.stderr.contains("stack traceback:"))
        #expect(!r.stderr.contains("not-her-password"))
    }

    @Test func spawnRunsLoginsConcurrently() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            local a = auth.app{ persist = false }
            local tasks, inFlight, most = {}, 0, 0
            for i = 1, 40 do
              tasks[i] = auth.spawn(function()
                inFlight = inFlight + 1
                most = math.max(most, inFlight)
                local id = a:login(credentials.anonymous{ reuse = false }).id
                inFlight = inFlight - 1
                return id
              end)
            end
            local ids, seen = auth.wait(tasks), {}
            for _, id in ipairs(ids) do seen[id] = true end
            local distinct = 0
            for _ in pairs(seen) do distinct = distinct + 1 end
            print(#ids, distinct, #a.allUsers, #users(), most == 40)
            """, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        // 40 users in the in-memory app; none in the default app's store.
        // `true`: all 40 logins had started before the first one finished (a login suspends its
        // task, it does not block the script).
        #expect(r.stdout == "40\t40\t40\t0\ttrue\n")
        #expect(!FileManager.default.fileExists(atPath: data + "/users/http___authsh.embedded/local/current"))
    }

    @Test func usersAndTheServerPersistAcrossRuns() async throws {
        let data = try Binary.temporaryDirectory()
        let first = try await Binary.script(
            """
            register{ email = "kim@example.com", password = "persist-1" }
            confirm(outbox{ email = "kim@example.com" }[1])
            print(login(credentials.emailPassword("kim@example.com", "persist-1")).id)
            """, data: data)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await Binary.script(
            """
            local me = whoami()
            print(me.id, me.state, me.profile.email)
            print(me.functions.whoami().id == me.id)   -- the old tokens work against the restarted server
            """, data: data)
        #expect(second.status == 0, "\(second.stderr)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(second.stdout == "\(id)\tloggedIn\tkim@example.com\ntrue\n")
    }

    @Test func theEmbeddedServerStartsOnlyWhenAScriptNeedsIt() async throws {
        let data = try Binary.temporaryDirectory()
        let quiet = try await Binary.run(["--data", data, "-e", "print(app.id, whoami(), #users())"])
        #expect(quiet.status == 0 && quiet.stdout == "local\tnil\t0\n")
        #expect(!FileManager.default.fileExists(atPath: data + "/server"))
        let busy = try await Binary.run(["--data", data, "-e", "login(credentials.anonymous())"])
        #expect(busy.status == 0, "\(busy.stderr)")
        #expect(FileManager.default.fileExists(atPath: data + "/server/authsh.sqlite"))
    }

    /// What a program that `os.execute` or `io.popen` runs holds: the script's files and what
    /// authsh was started with (here, through Python, exactly that: Python closes the rest), never
    /// the host's own sockets and event descriptors.
    @Test(arguments: [false, true])
    func aProgramTheScriptRunsHoldsNoneOfTheHostsConnections(startedWithASocket: Bool) async throws {
        let data = try Binary.temporaryDirectory()
        let listing = data + "/fds.txt"
        let python = """
            import socket, subprocess, sys, os
            passed = []
            if sys.argv[4] == "yes":
                a, b = socket.socketpair()
                os.dup2(a.fileno(), 7)
                passed = [7]
            r = subprocess.run([sys.argv[1], "--data", sys.argv[2], "-e", sys.argv[3]], pass_fds=passed, capture_output=True, text=True)
            sys.stdout.write(r.stdout + r.stderr)
            """
        let lua = """
            login(credentials.anonymous())
            whoami():refreshCustomData()                          -- a connection kept alive
            local mine = io.open("\(data)/mine.txt", "w")         -- the script's own file
            local p = io.popen("ls -l /proc/self/fd")
            io.write(p:read("a"))
            p:close()
            os.execute("ls -l /proc/self/fd > \(listing)")
            mine:close()
            """
        let r = try await Binary.run(["-c", python, Binary.path, data, lua, startedWithASocket ? "yes" : "no"], executable: "/usr/bin/python3")
        let execute = (try? String(contentsOfFile: listing, encoding: .utf8)) ?? ""
        for (name, text) in [("io.popen", r.stdout), ("os.execute", execute)] {
            let sockets = text.split(separator: "\n").filter { $0.contains("socket:") }
            if startedWithASocket {
                #expect(sockets.count == 1 && sockets.first?.contains(" 7 -> ") == true, "\(name): \(text)")
            } else {
                #expect(sockets.isEmpty, "\(name): \(text)")
            }
            #expect(!text.contains("anon_inode:"), "\(name): \(text)")
            // Files pass as under lua5.4.
            #expect(text.contains("/mine.txt"), "\(name): \(text)")
        }
    }

    @Test func aServerThatCannotStartIsAClearError() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.run(["--data", data, "--plugins", data + "/no-such-dir", "-e", "login(credentials.anonymous())"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("EmbeddedServerFailed: the embedded server did not start"))
        #expect(r.stderr.contains("no-such-dir"))
    }

    @Test func jsonModePrintsTablesAsJSON() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            login(credentials.anonymous())
            print({ n = 1, list = { true, "x" } }, 7)
            local u = whoami()
            print({ id = u.id, identities = u.identities })
            """, data: data, options: ["--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == #"{"list":[true,"x"],"n":1}"# + "\t7")
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect((second?["identities"] as? [[String: String]])?.first?["providerType"] == "anon-user")
    }

    @Test func badCommandLinesExit64() async throws {
        let r = try await Binary.run(["--server", "localhost:9090", "-e", "print(1)"])
        #expect(r.status == 64 && r.stderr.contains("--server: an http:// or https:// URL is needed"))
        #expect(try await Binary.run(["--app", "", "-e", "print(1)"]).status == 64)
    }
}
