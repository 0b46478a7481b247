import Foundation
import Testing

/// The auth REPL in a real pseudo-terminal: the prompt follows the current user, completion
/// knows the auth objects, results print as one-liners, and passwords stay out of history.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct AuthREPLTests {
    @Test func promptFollowsTheCurrentUser() throws {
        let data = try Binary.temporaryDirectory()
        let term = try Terminal(arguments: ["--plugins", Binary.repository + "/plugins"], dataDirectory: data)
        try term.waitFor("app local on the embedded dev server")
        try term.waitFor("authsh local>")
        try term.type("login(credentials.anonymous())")
        try term.waitFor("User(")
        try term.waitFor("authsh local anonymous>")
        try term.type("register{ email = 'ann@example.com', password = 'ann-secret' }")
        try term.type("confirm(outbox{ email = 'ann@example.com' }[1])")
        try term.type("login(credentials.emailPassword('ann@example.com', 'ann-secret'))")
        try term.waitFor("ann@example.com, loggedIn)")
        try term.waitFor("authsh local ann@example.com>")
        try term.type("whoami()")
        let screen = try term.waitFor("whoami()\nUser(")
        // The line under whoami() is ann's.
        let answer = screen.components(separatedBy: "whoami()\n").last?.split(separator: "\n").first ?? ""
        #expect(answer.contains("ann@example.com, loggedIn)"), "\(answer)")
        try term.type(".users")
        try term.waitFor("* User(")
        try term.type(".outbox ann@example.com")
        try term.waitFor("confirm{ token = ")
        try term.type("pcall(login, credentials.emailPassword('ann@example.com', 'wrong-pass'))")
        try term.waitFor("false   InvalidPassword: invalid username/password (HTTP 401)")
        #expect(try term.quit())
        let history = try term.history()
        #expect(history.contains("whoami()"))
        #expect(!history.contains("ann-secret") && !history.contains("wrong-pass"))
    }

    /// The account-exists conflict prints as one line that says what to do, `_` holds it, and
    /// `linkIdentity(_.credential)` completes it; `.whoami` lists identities with their emails.
    @Test func theAccountExistsConflictSaysWhatToDoNext() throws {
        let data = try Binary.temporaryDirectory()
        let term = try Terminal(arguments: [], dataDirectory: data)
        try term.waitFor("authsh local>")
        try term.type("register{ email = 'lin@example.com', password = 'lin-secret' }")
        try term.type("confirm(outbox{ email = 'lin@example.com' }[1])")
        try term.type("signIn('google', { as = { email = 'lin@example.com' } })")
        try term.waitFor("AccountExistsWithDifferentCredential: lin@example.com already has an account", timeout: .seconds(20))
        // The line is wider than the terminal: compare it unwrapped (a wrap may eat a space).
        func squeezed(_ s: String) -> String { s.filter { !$0.isWhitespace } }
        let conflict = squeezed(try term.waitFor("authsh local>\n"))
        #expect(conflict.contains(squeezed("already has an account (local-userpass): sign in to it and link oauth2-google in one line: "
                                  + "login(credentials.emailPassword(\"lin@example.com\", auth.password())); linkIdentity(_.credential)")),
                "\(conflict)")
        try term.type("print(_.email .. ' ' .. _.providers[1] .. ' ' .. tostring(_.credential))")
        try term.waitFor("\nlin@example.com local-userpass Credentials(oauth2-google)")
        // The line as printed: the password prompt reads it, then the link completes.
        try term.type("login(credentials.emailPassword('lin@example.com', auth.password())); linkIdentity(_.credential)")
        try term.waitFor("Password:")
        try term.type("lin-secret")
        try term.waitFor("authsh local lin@example.com>", timeout: .seconds(20))
        try term.type(".whoami")
        try term.waitFor("  local-userpass  lin@example.com  ")
        try term.waitFor("  oauth2-google  lin@example.com  ")
        #expect(try term.quit())
    }

    @Test func ctrlCCancelsASignInThatWaitsAndTheREPLGoesOn() throws {
        let data = try Binary.temporaryDirectory()
        let term = try Terminal(arguments: [], dataDirectory: data)
        try term.waitFor("authsh local>")
        try term.type("signIn('github', { browser = false })")
        try term.waitFor("Open this URL in a browser to sign in: http://127.0.0.1:", timeout: .seconds(20))
        try term.press("C-c")
        try term.waitFor("interrupted!")
        try term.waitFor("authsh local>")
        try term.type("signIn('github', { as = { email = 'kim@example.com' } })")
        try term.waitFor("kim@example.com, loggedIn)", timeout: .seconds(20))
        try term.waitFor("authsh local kim@example.com>", timeout: .seconds(20))
        #expect(try term.quit(timeout: .seconds(20)))
    }

    /// A person in a real browser: headless Chromium, started as `$BROWSER` by signIn, opens
    /// the dev identity provider's authorize page, fills it, approves, and the REPL is signed
    /// in. The page's screenshot is the guided tour's (`docs/dev-idp-authorize.png`).
    @Test func signInWithGitHubInARealBrowser() throws {
        let data = try Binary.temporaryDirectory()
        let python = Binary.repository + "/.build/venv/bin/python3"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/setup (.build/venv)")
        let browser = Binary.repository + "/Tests/browser/sign-in-browser.sh"
        let log = data + "/browser.log"
        let term = try Terminal(arguments: [], dataDirectory: data, environment: [
            "BROWSER": browser, "SIGNIN_EMAIL": "grace@example.com", "SIGNIN_NAME": "Grace Hopper",
            "SIGNIN_LOG": log, "SIGNIN_SCREENSHOT": data + "/authorize.png",
        ])
        try term.waitFor("authsh local>")
        try term.type("signIn('github')")
        try term.waitFor("Opened your browser to sign in", timeout: .seconds(20))
        do {
            try term.waitFor("authsh local grace@example.com>", timeout: .seconds(60))
        } catch {
            Issue.record("\(error); browser log: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "none")")
        }
        try term.type("whoami().identities[1].providerType, whoami().profile.name")
        try term.waitFor("\"oauth2-github\" \"Grace Hopper\"")
        // The REPL is signed in once the loopback listener has the code; the browser writes
        // its line after it has rendered the page the listener answered with: wait for it.
        var log_ = ""
        for _ in 0..<400 where !log_.contains("loopback page:") {
            log_ = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(log_.contains("loopback page: You are signed in to authsh"), "\(log_)")
        #expect(FileManager.default.fileExists(atPath: data + "/authorize.png"))
        if let out = ProcessInfo.processInfo.environment["AUTHSH_SCREENSHOT_OUT"] {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.copyItem(atPath: data + "/authorize.png", toPath: out)
        }
        #expect(try term.quit(timeout: .seconds(20)))
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
    func completionKnowsTheAuthObjects(typed: String, completed: String) throws {
        let term = try Terminal.started()
        try term.type(typed, enter: false)
        try term.press("Tab")
        try term.waitFor(completed)
    }
}
