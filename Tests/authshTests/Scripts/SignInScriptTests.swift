// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `signIn`, `auth.http`, `user.providerTokens`, `auth.dev.idp` and the IdP credentials, run
/// by the built binary against the embedded server and its dev identity provider.
@Suite(.binary, .timeLimit(.minutes(5))) struct SignInScriptTests {
    @Test func signInByEveryRouteLandsOnOneUserPerIdentity() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            local ada = { email = "ada@example.com", name = "Ada" }
            local u = signIn("github", { as = ada, scopes = { "read:user", "user:email" }, customParameters = { allow_signup = "false" } })
            assert(u == whoami() and u.identities[1].providerType == "oauth2-github" and u.profile.email == "ada@example.com")
            assert(auth.signIn("oauth2-github", { as = ada }) == u, "auth.signIn: the same user")
            assert(app:signIn("github", { as = ada, device = true }) == u, "the device flow: the same user")
            -- Without user:email, GitHub gives no email: the profile has none.
            local noMail = signIn("github", { as = { email = "nomail@example.com" }, scopes = { "read:user" } })
            assert(noMail.profile.email == nil and noMail.profile.name == "nomail")
            local g = signIn("google", { as = { email = "ada@example.com", verified = false } })
            assert(g ~= u and g.profile.email == nil, "an unverified Google email stays out of the profile")
            assert(g.providerTokens.idToken and g.providerTokens.accessToken)
            local status, headers, body = auth.http{ url = auth.dev.idp.githubAPI .. "/user",
              headers = { Authorization = "Bearer " .. u.providerTokens.accessToken } }
            print(status, headers["content-type"], auth.json.decode(body).name)
            status = auth.http{ url = auth.dev.idp.githubAPI .. "/user", headers = { Authorization = "Bearer nope" } }
            print(status)
            print(#users())
            """, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "200\tapplication/json\tAda\n401\n3\n")
    }

    /// The browser `signIn` starts holds none of authsh's descriptors: no socket (the client's
    /// connections carry tokens, the loopback listener waits for the code), no pipe of the
    /// embedded server; only /dev/null on 0 to 2.
    @Test func theBrowserHoldsNoDescriptorOfAuthsh() async throws {
        let data = try Binary.temporaryDirectory()
        let dir = try Binary.temporaryDirectory()
        try Binary.write("#!/bin/sh\nls -l /proc/$$/fd > \"$FDS_OUT.tmp\"\nmv \"$FDS_OUT.tmp\" \"$FDS_OUT\"\n", to: dir + "/browser")
        #expect(chmod(dir + "/browser", 0o755) == 0)
        try Binary.write(
            """
            login(credentials.anonymous())
            local ok, err = pcall(signIn, "github", { timeout = 2 })
            print(ok, err.code)
            """, to: dir + "/s.lua")
        let r = try await Binary.run(
            ["--data", data, dir + "/s.lua"],
            environment: ["BROWSER": dir + "/browser", "FDS_OUT": dir + "/fds"], directory: dir)
        #expect(r.status == 0 && r.stdout == "false\tSignInTimedOut\n", "\(r.stdout) \(r.stderr)")
        let listing = try String(contentsOfFile: dir + "/fds", encoding: .utf8)
        let entries = listing.split(separator: "\n").filter { $0.contains(" -> ") }
        #expect(!entries.isEmpty, "\(listing)")
        // What the shell itself opened (its script, the listing it writes, a copy of its stdout)
        // and /dev/null: nothing else.
        let allowed = ["/dev/null", dir + "/browser", dir + "/fds.tmp"]
        for entry in entries {
            let target = entry.components(separatedBy: " -> ").last ?? ""
            #expect(allowed.contains(target), "the browser holds \(entry)")
        }
        for fd in [0, 2] { #expect(entries.contains { $0.hasSuffix(" \(fd) -> /dev/null") }, "\(fd): \(listing)") }
    }

    @Test func signInMistakesAreClearErrors() async throws {
        let data = try Binary.temporaryDirectory()
        let r2 = try await Binary.script(
            """
            local ok, err = pcall(auth.dev.idp.approve, "ABCD-EFGH", { email = "x@example.com" })
            print(ok, err.code)
            ok, err = pcall(signIn, "github", { as = "ada" })
            print(ok, (tostring(err):gsub("^.-: ", "")))
            ok, err = pcall(signIn, "nosuch", { as = { email = "a@example.com" } })
            print(ok, err.code, err.status)
            ok, err = pcall(auth.http, { url = "ftp://example.com" })
            print(ok, (tostring(err):gsub("^.-: ", "")))
            ok, err = pcall(signIn, "github", { browser = false, timeout = 0.3 })
            print(ok, err.code)
            """, data: data)
        #expect(r2.status == 0, "\(r2.stderr)")
        #expect(
            r2.stdout == """
                false\tInvalidParameter
                false\tbad argument #2 to 'signIn' (field 'as' must be a table ({email =, name =, verified =}))
                false\tAuthProviderNotFound\t404
                false\tbad argument #1 to 'auth.http' (field 'url' must be an http:// or https:// URL)
                false\tSignInTimedOut

                """)
        #expect(r2.stderr.contains("Open this URL in a browser to sign in: http://127.0.0.1:"))
    }

    @Test func idpCredentialsAreBuiltBothWays() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            print(credentials.apple{ idToken = "t" }, credentials.apple("t"), credentials.facebook{ accessToken = "a" })
            print(credentials.google{ idToken = "t" }, credentials.oauth("github", { accessToken = "x" }))
            local ok, err = pcall(login, credentials.oauth("github", { accessToken = "gho_forged" }))
            print(ok, err.code, err.message)
            """, data: data)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                Credentials(oauth2-apple)\tCredentials(oauth2-apple)\tCredentials(oauth2-facebook)
                Credentials(oauth2-google)\tCredentials(oauth2-github)
                false\tAuthError\toauth2-github refused the access token: not issued to this app

                """)
    }
}
