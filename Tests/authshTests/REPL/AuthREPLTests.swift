// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The auth REPL in a real pseudo-terminal: the prompt follows the current user, completion
/// knows the auth objects, results print as one-liners, and passwords stay out of history.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")), .binary, .timeLimit(.minutes(5)))
struct AuthREPLTests {
    @Test func promptFollowsTheCurrentUser() async throws {
        let data = try Binary.temporaryDirectory()
        let term = try await Terminal(arguments: ["--plugins", Binary.repository + "/plugins"], dataDirectory: data)
        try await term.waitFor("app local on the embedded dev server")
        try await term.waitFor("authsh local>")
        try await term.type("login(credentials.anonymous())")
        try await term.waitFor("User(")
        try await term.waitFor("authsh local anonymous>")
        try await term.type("register{ email = 'ann@example.com', password = 'ann-secret' }")
        try await term.type("confirm(outbox{ email = 'ann@example.com' }[1])")
        try await term.type("login(credentials.emailPassword('ann@example.com', 'ann-secret'))")
        try await term.waitFor("ann@example.com, loggedIn)")
        try await term.waitFor("authsh local ann@example.com>")
        try await term.type("whoami()")
        let screen = try await term.waitFor("whoami()\nUser(")
        // The line under whoami() is ann's.
        let answer = screen.components(separatedBy: "whoami()\n").last?.split(separator: "\n").first ?? ""
        #expect(answer.contains("ann@example.com, loggedIn)"), "\(answer)")
        try await term.type(".users")
        try await term.waitFor("* User(")
        try await term.type(".outbox ann@example.com")
        try await term.waitFor("confirm{ token = ")
        try await term.type("pcall(login, credentials.emailPassword('ann@example.com', 'wrong-pass'))")
        try await term.waitFor("false   InvalidPassword: invalid username/password (HTTP 401)")
        #expect(try await term.quit())
        let history = try term.history()
        #expect(history.contains("whoami()"))
        #expect(!history.contains("ann-secret") && !history.contains("wrong-pass"))
    }

    /// The account-exists conflict prints as one line that says what to do, `_` holds it, and
    /// `linkIdentity(_.credential)` completes it; `.whoami` lists identities with their emails.
    @Test func theAccountExistsConflictSaysWhatToDoNext() async throws {
        let data = try Binary.temporaryDirectory()
        let term = try await Terminal(arguments: [], dataDirectory: data)
        try await term.waitFor("authsh local>")
        try await term.type("register{ email = 'lin@example.com', password = 'lin-secret' }")
        try await term.type("confirm(outbox{ email = 'lin@example.com' }[1])")
        try await term.type("signIn('google', { as = { email = 'lin@example.com' } })")
        try await term.waitFor("AccountExistsWithDifferentCredential: lin@example.com already has an account", timeout: .seconds(20))
        // The line is wider than the terminal: compare it unwrapped (a wrap may eat a space).
        func squeezed(_ s: String) -> String { s.filter { !$0.isWhitespace } }
        let conflict = squeezed(try await term.waitFor("authsh local>\n"))
        #expect(
            conflict.contains(
                squeezed(
                    "already has an account (local-userpass): sign in to it and link oauth2-google in one line: "
                        + "login(credentials.emailPassword(\"lin@example.com\", auth.password())); linkIdentity(_.credential)")),
            "\(conflict)")
        try await term.type("print(_.email .. ' ' .. _.providers[1] .. ' ' .. tostring(_.credential))")
        try await term.waitFor("\nlin@example.com local-userpass Credentials(oauth2-google)")
        // The line as printed: the password prompt reads it, then the link completes.
        try await term.type("login(credentials.emailPassword('lin@example.com', auth.password())); linkIdentity(_.credential)")
        try await term.waitFor("Password:")
        try await term.type("lin-secret")
        try await term.waitFor("authsh local lin@example.com>", timeout: .seconds(20))
        try await term.type(".whoami")
        try await term.waitFor("  local-userpass  lin@example.com  ")
        try await term.waitFor("  oauth2-google  lin@example.com  ")
        #expect(try await term.quit())
    }

    @Test func ctrlCCancelsASignInThatWaitsAndTheREPLGoesOn() async throws {
        let data = try Binary.temporaryDirectory()
        let term = try await Terminal(arguments: [], dataDirectory: data)
        try await term.waitFor("authsh local>")
        try await term.type("signIn('github', { browser = false })")
        try await term.waitFor("Open this URL in a browser to sign in: http://127.0.0.1:", timeout: .seconds(20))
        try await term.press("C-c")
        try await term.waitFor("interrupted!")
        try await term.waitFor("authsh local>")
        try await term.type("signIn('github', { as = { email = 'kim@example.com' } })")
        try await term.waitFor("kim@example.com, loggedIn)", timeout: .seconds(20))
        try await term.waitFor("authsh local kim@example.com>", timeout: .seconds(20))
        #expect(try await term.quit(timeout: .seconds(20)))
    }

    /// A person in a real browser: headless Chromium, started as `$BROWSER` by signIn, opens
    /// the dev identity provider's authorize page, fills it, approves, and the REPL is signed
    /// in. The page's screenshot is the guided tour's (`docs/dev-idp-authorize.png`).
    @Test func signInWithGitHubInARealBrowser() async throws {
        let data = try Binary.temporaryDirectory()
        let python = Binary.repository + "/.build/venv/bin/python3"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/setup (.build/venv)")
        let browser = Binary.repository + "/Tests/browser/sign-in-browser.sh"
        let log = data + "/browser.log"
        let term = try await Terminal(
            arguments: [], dataDirectory: data,
            environment: [
                "BROWSER": browser, "SIGNIN_EMAIL": "grace@example.com", "SIGNIN_NAME": "Grace Hopper",
                "SIGNIN_LOG": log, "SIGNIN_SCREENSHOT": data + "/authorize.png",
            ])
        try await term.waitFor("authsh local>")
        try await term.type("signIn('github')")
        try await term.waitFor("Opened your browser to sign in", timeout: .seconds(20))
        do {
            try await term.waitFor("authsh local grace@example.com>", timeout: .seconds(60))
        } catch {
            Issue.record("\(error); browser log: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "none")")
        }
        try await term.type("whoami().identities[1].providerType, whoami().profile.name")
        try await term.waitFor("\"oauth2-github\" \"Grace Hopper\"")
        // The REPL is signed in once the loopback listener has the code; the browser writes
        // its line after it has rendered the page the listener answered with: wait for it.
        var log_ = ""
        for _ in 0..<400 where !log_.contains("loopback page:") {
            log_ = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(log_.contains("loopback page: You are signed in to authsh"), "\(log_)")
        #expect(FileManager.default.fileExists(atPath: data + "/authorize.png"))
        if let out = ProcessInfo.processInfo.environment["AUTHSH_SCREENSHOT_OUT"] {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.copyItem(atPath: data + "/authorize.png", toPath: out)
        }
        #expect(try await term.quit(timeout: .seconds(20)))
    }

    @Test(arguments: [
        ("app.emailPasswordAuth:reg", "app.emailPasswordAuth:registerUser"),
        ("credentials.emailP", "credentials.emailPassword"),
        ("auth.dev.adv", "auth.dev.advanceClock"),
        ("app.currentUser.apiKeys:cr", "app.currentUser.apiKeys:create"),
        ("app.currentUser:linkI", "app.currentUser:linkIdentity"),
        ("signI", "signIn"),
        ("auth.dev.idp.app", "auth.dev.idp.approve"),
        ("app.currentUser.providerT", "app.currentUser.providerTokens"),
        ("app.currentUser:reauth", "app.currentUser:reauthenticate"),
        ("app.currentUser:revokeO", "app.currentUser:revokeOtherSessions"),
        ("auth.signInM", "auth.signInMethods"),
        ("app.emailPasswordAuth:changeP", "app.emailPasswordAuth:changePassword"),
    ])
    func completionKnowsTheAuthObjects(typed: String, completed: String) async throws {
        let term = try await Terminal.started()
        try await term.type(typed, enter: false)
        try await term.press("Tab")
        try await term.waitFor(completed)
    }
}

extension AuthREPLTests {
    /// `.save FILE`: the statements that ran, in order, as a script that replays them; a line
    /// that failed is left out, an expression is printed, and a typed password is not written.
    @Test func saveWritesAScriptThatReplaysTheSession() async throws {
        let data = try Binary.temporaryDirectory()
        let script = data + "/session.lua"
        let term = try await Terminal(arguments: [], dataDirectory: data)
        try await term.waitFor("authsh local>")
        try await term.type("register('sam@example.com', 'sam-secret')")
        try await term.type("confirm(outbox{ email = 'sam@example.com' }[1])")
        try await term.type("login(credentials.emailPassword('sam@example.com', 'no-such-password'))")
        try await term.waitFor("InvalidPassword")
        try await term.type("u = login(credentials.emailPassword('sam@example.com', auth.password()))")
        try await term.waitFor("Password:")
        try await term.type("typed-secret-1")
        try await term.waitFor("InvalidPassword: invalid username/password")
        try await term.type("u = login(credentials.emailPassword('sam@example.com', 'sam-secret'))")
        try await term.type("u.profile.email")
        try await term.waitFor("\"sam@example.com\"")
        try await term.type(".save \(script)")
        try await term.waitFor("saved 4 statements to \(script)")
        #expect(try await term.quit())

        let text = try String(contentsOfFile: script, encoding: .utf8)
        #expect(
            text == """
                register('sam@example.com', 'sam-secret')
                confirm(outbox{ email = 'sam@example.com' }[1])
                u = login(credentials.emailPassword('sam@example.com', 'sam-secret'))
                print(u.profile.email)

                """, "\(text)")
        #expect(!text.contains("typed-secret-1") && !text.contains("no-such-password"))
        var info = stat()
        #expect(stat(script, &info) == 0 && info.st_mode & 0o777 == 0o600)
        // Replayed on a fresh data directory (a fresh embedded server): the same user again.
        let replay = try await Binary.run(["--data", try Binary.temporaryDirectory(), script])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == "sam@example.com\n", "\(replay.stdout)")
    }
}

/// Second factors in the REPL: an enrolment draws its QR code, and a login that needs its
/// second factor asks for the code and completes.
extension AuthREPLTests {
    @Test func totpEnrolmentShowsAQRCodeAndTheLoginAsksForTheCode() async throws {
        let data = try Binary.temporaryDirectory()
        let term = try await Terminal(arguments: [], dataDirectory: data)
        try await term.waitFor("authsh local>")
        try await term.type("register{ email = 'mia@example.com', password = 'mia-secret' }")
        try await term.type("confirm(outbox{ email = 'mia@example.com' }[1])")
        try await term.type("u = login(credentials.emailPassword('mia@example.com', 'mia-secret'))")
        try await term.type("e = u:enrollTOTP()")
        let shown = try await term.waitFor("otpauth://totp/local:mia%40example.com?secret=")
        #expect(shown.contains("Scan this with an authenticator app"), "\(shown)")
        // The URI is wider than the terminal: the test reads it from a file.
        try await term.type("f = io.open('\(data)/uri', 'w'); f:write(e.uri); f:close(); print('written')")
        try await term.waitFor("\nwritten")
        let uri = try String(contentsOfFile: data + "/uri", encoding: .utf8)
        // The block the REPL drew is qrencode's own drawing of the URI.
        let drawn = try await Binary.run(["-t", "UTF8", "-m", "2", "-o", "-"], stdin: uri, executable: "/usr/bin/qrencode")
        let rows = drawn.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count > 20)
        #expect(shown.contains(rows[rows.count / 2]), "the middle row of the QR code is on the screen")

        try await term.type("codes = u:confirmTOTP(auth.totp(e.secret, auth.dev.advanceClock(0).now)); print('CODE=' .. codes[1])")
        let code = try #require(
            try await term.waitFor("\nCODE=").components(separatedBy: "\nCODE=").last?.split(separator: "\n").first.map(String.init))
        try await term.type("login(credentials.emailPassword('mia@example.com', 'mia-secret'))")
        try await term.waitFor("MFARequired: this user has a second factor")
        try await term.waitFor("code (authenticator app, or a recovery code):")
        try await term.type("zzzzz-zzzzz")
        try await term.waitFor("InvalidMFACode: unknown or used recovery code (4 attempts left")
        try await term.type(code)
        try await term.waitFor("mia@example.com, loggedIn)")
        try await term.waitFor("authsh local mia@example.com>")
        #expect(try await term.quit())
        #expect(!(try term.history()).contains(code), "a code typed at the prompt stays out of history")
    }
}
