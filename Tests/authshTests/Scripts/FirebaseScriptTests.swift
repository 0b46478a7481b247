// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The Lua bindings over Firebase Auth's API (`authsh --firebase`, the embedded server as the
/// emulator): the account operations the client maps to Firebase's, and the ones only Firebase
/// has, refused over App Services naming the protocol.
@Suite(.binary, .timeLimit(.minutes(5))) struct FirebaseScriptTests {
    @Test func accountOperationsAndFirebasesOwn() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            register{ email = "ada@example.com", password = "password1" }
            local ada = login(credentials.emailPassword("ada@example.com", "password1"))
            ada:updateProfile{ displayName = "Ada", photoURL = "https://example.com/ada.png" }
            assert(ada.profile.name == "Ada" and ada.profile.picture_url == "https://example.com/ada.png", auth.json.encode(ada.profile))
            ada:updateProfile{ displayName = "" }
            assert(ada.profile.name == nil)
            local ok, err = pcall(ada.updateProfile, ada, { displayName = 7 })
            assert(not ok and tostring(err):find("displayName", 1, true), tostring(err))

            -- A GitHub identity linked, then unlinked by its provider.
            ada:linkIdentity(credentials.oauth("github", { idToken = '{"sub":"gh-ada","email":"ada@gh.example.com"}' }))
            assert(#ada.identities == 2)
            ada:unlink("oauth2-github", "gh-ada")
            assert(#ada.identities == 1 and ada.identities[1].providerType == "local-userpass")

            -- A sign-in link from the outbox signs a new user in.
            app.emailPasswordAuth:sendSignInLink("link@example.com")
            local mail = outbox{ email = "link@example.com" }
            assert(#mail == 1, #mail)
            local linked = login(credentials.emailLink("link@example.com", mail[1].link))
            assert(linked ~= ada and linked.profile.email == "link@example.com")

            -- Reauthentication keeps the user; a password change checks the old one.
            switchUser(ada)
            assert(ada:reauthenticate(credentials.emailPassword("ada@example.com", "password1")) == ada)
            ok, err = pcall(app.emailPasswordAuth.changePassword, app.emailPasswordAuth, { password = "wrong", newPassword = "password2" })
            assert(not ok and err.code == "InvalidPassword", tostring(err))
            app.emailPasswordAuth:changePassword{ password = "password1", newPassword = "password2" }
            assert(login(credentials.emailPassword("ada@example.com", "password2")) == ada)

            -- signIn runs the dev identity provider's flow through signInWithIdp.
            local octo = signIn("github", { as = { email = "octo@example.com", name = "Octo" } })
            assert(octo.identities[1].providerType == "oauth2-github" and octo.profile.email == "octo@example.com")
            assert(octo.claims.firebase.sign_in_provider == "github.com" and whoami() == octo)
            assert(signIn("github", { as = { email = "octo@example.com" } }) == octo)

            -- Only Firebase has these: an App Services app refuses them, naming its protocol.
            local services = auth.app{ firebase = false, persist = false }
            local guest = services:login(credentials.anonymous())
            ok, err = pcall(guest.updateProfile, guest, { displayName = "x" })
            assert(not ok and err.code == "NotInProtocol" and err.message:find("App Services", 1, true), tostring(err))
            ok, err = pcall(services.login, services, credentials.emailLink("x@example.com", "code"))
            assert(not ok and err.code == "NotInProtocol", tostring(err))
            print(ada.profile.email, linked.identities[1].providerType)
            """, data: data, options: ["--firebase", "demo-project"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ada@example.com\tlocal-userpass\n")
    }

    /// A Firebase app's outbox is the emulator's `oobCodes`, on whatever server answers as the
    /// emulator (here a separate `authsh serve --dev` named by `--emulator`): `confirm(mail)`,
    /// `resetPassword` and `credentials.emailLink` take its codes.
    @Test func theOutboxIsTheEmulatorsActionCodes() async throws {
        let server = try await ServerProcess(["--dev"])
        let data = try Binary.temporaryDirectory()
        let host = server.origin.replacingOccurrences(of: "http://", with: "")
        let r = try await Binary.run([
            "--firebase", "local", "--emulator", host, "--data", data, "-e",
            """
            register{ email = "em@example.com", password = "password1" }
            local mail = outbox{ email = "em@example.com", kind = "confirm" }
            assert(#mail == 1 and mail[1].requestType == "VERIFY_EMAIL" and mail[1].tokenId == "", auth.json.encode(mail))
            confirm(mail[1])
            local user = login(credentials.emailPassword("em@example.com", "password1"))
            assert(user.claims.email_verified == true, "the code verified the email")
            app.emailPasswordAuth:sendResetPasswordEmail("em@example.com")
            local reset = outbox{ email = "em@example.com", kind = "PASSWORD_RESET" }
            resetPassword{ token = reset[1].token, tokenId = reset[1].tokenId, password = "password2" }
            assert(login(credentials.emailPassword("em@example.com", "password2")) == user)
            app.emailPasswordAuth:sendSignInLink("em@example.com")
            local link = outbox{ email = "em@example.com", kind = "signin" }
            assert(login(credentials.emailLink("em@example.com", link[1].link)) == user)
            print(#outbox{ email = "em@example.com" }, app.server)
            """,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "3\t\(server.origin)\n")
    }

    /// A phone second factor in Lua: enrolled over Firebase, its texts in the outbox, and a
    /// login completed by `sendPhoneCode(err)` and the code, over both protocols.
    @Test func aPhoneFactorInLua() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            local number = "+15555550101"
            local services = auth.app{ firebase = false, persist = false }
            register{ email = "ph@example.com", password = "password1" }
            confirm(outbox{ email = "ph@example.com", kind = "confirm" }[1])
            local user = login(credentials.emailPassword("ph@example.com", "password1"))
            user:enrollPhone(number)
            local texts = outbox{ email = number }
            assert(#texts == 1 and texts[1].kind == "sms", auth.json.encode(texts))
            user:confirmPhone(texts[1].token, "work phone")
            local factors = user:secondFactors().factors
            assert(#factors == 1 and factors[1].type == "phone" and factors[1].phoneNumber == number, auth.json.encode(factors))

            local ok, err = pcall(login, credentials.emailPassword("ph@example.com", "password1"))
            assert(not ok and err.code == "MFARequired" and err.factors[1] == "phone", tostring(err))
            assert(sendPhoneCode(err):sub(-4) == "0101")
            local texted = outbox{ email = number }
            assert(login(credentials.mfa(err, texted[#texted].token)) == user)

            ok, err = pcall(services.login, services, credentials.emailPassword("ph@example.com", "password1"))
            assert(not ok and err.code == "MFARequired", tostring(err))
            services:sendPhoneCode(err)
            texted = outbox{ email = number }
            local same = services:login(credentials.mfa(err, texted[#texted].token))
            assert(same.id == user.id)
            ok, err = pcall(same.enrollPhone, same, number)
            assert(not ok and err.code == "NotInProtocol", tostring(err))
            print(#texted, factors[1].enrollmentId ~= nil)
            """, data: data, options: ["--firebase", "demo-project"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "3\ttrue\n")
    }

    /// Every binding of the client over Firebase's API works, or raises `NotInProtocol` naming
    /// the protocol: never a server's 404 or a malformed answer.
    @Test func everyBindingWorksOrNamesTheProtocol() async throws {
        let data = try Binary.temporaryDirectory()
        let r = try await Binary.script(
            """
            register{ email = "all@example.com", password = "password1" }
            confirm(outbox{ email = "all@example.com", kind = "confirm" }[1])
            local u = login(credentials.emailPassword("all@example.com", "password1"))
            local authenticator = auth.passkey.authenticator()
            local refused = {
              { "callFunction", function() return u:callFunction("sum", 1, 2) end },
              { "functions", function() return u.functions.sum(1, 2) end },
              { "apiKeys:create", function() return u.apiKeys:create("k") end },
              { "apiKeys:list", function() return u.apiKeys:list() end },
              { "sessions", function() return u:sessions() end },
              { "revokeSession", function() return u:revokeSession("6b0000000000000000000000") end },
              { "revokeOtherSessions", function() return u:revokeOtherSessions() end },
              { "newRecoveryCodes", function() return u:newRecoveryCodes() end },
              { "registerPasskey", function() return u:registerPasskey{ authenticator = authenticator } end },
              { "passkeys", function() return u:passkeys() end },
              { "resendConfirmationEmail", function() return app.emailPasswordAuth:resendConfirmationEmail("all@example.com") end },
              { "retryCustomConfirmation", function() return app.emailPasswordAuth:retryCustomConfirmation("all@example.com") end },
              { "callResetFunction", function() return callResetFunction("all@example.com", "password2") end },
              { "login apiKey", function() return login(credentials.apiKey("key")) end },
              { "login customFunction", function() return login(credentials.customFunction{ username = "x" }) end },
              { "login passkey", function() return login(credentials.passkey(authenticator)) end },
              { "signIn device", function() return signIn("google", { device = true, as = { email = "d@example.com" } }) end },
            }
            local names = {}
            for _, case in ipairs(refused) do
              local ok, err = pcall(case[2])
              assert(not ok, case[1] .. " passed over Firebase")
              assert(err.code == "NotInProtocol" and err.message:find("Firebase", 1, true), case[1] .. ": " .. tostring(err))
              names[#names + 1] = case[1]
            end
            -- What both have works.
            assert(u:refreshProfile().email == "all@example.com")
            u:refreshCustomData()
            assert(#app:signInMethods("all@example.com") == 1)
            assert(u:secondFactors().recoveryCodes == 0)
            print(#names)
            """, data: data, options: ["--firebase", "demo-project"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "17\n")
    }
}
