// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

@Suite(.timeLimit(.minutes(5))) struct UserpassTests {
    @Test func signUpConfirmAndLogIn() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("alice@example.com", "password1")
            let login = try await c.emailLogin("alice@example.com", "password1")
            #expect(login.status == 200)
            for key in ["access_token", "refresh_token", "user_id", "device_id"] { #expect(login[key] != nil) }
            let profile = try await c.profile(login["access_token"]!)
            #expect(profile["user_id"] == login["user_id"])
            #expect(profile.body["data"]?["email"] == "alice@example.com")
            #expect(profile.body["identities"]?.arrayValue?.first?["provider_type"] == "local-userpass")
            // A second login finds the same user.
            #expect(try await c.emailLogin("alice@example.com", "password1")["user_id"] == login["user_id"])
        }
    }

    @Test func doubleRegistrationAndPendingUsers() async throws {
        try await TestServer.run { c in
            let body: EJSON = ["email": "bob@example.com", "password": "password1"]
            #expect(try await c.userpass("register", body).status == 201)
            let again = try await c.userpass("register", body)
            #expect(again.status == 409 && again.code == "AccountNameInUse" && again.message == "name already in use")
            let pending = try await c.emailLogin("bob@example.com", "password1")
            #expect(pending.status == 401 && pending.code == "AuthError" && pending.message == "confirmation required")
            // Emails are case-sensitive: another address.
            #expect(try await c.userpass("register", ["email": "Bob@example.com", "password": "password1"]).status == 201)
        }
    }

    @Test func wrongPasswordAndUnknownUserGetTheSameAnswer() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("carol@example.com")
            let wrong = try await c.emailLogin("carol@example.com", "not-her-password")
            let unknown = try await c.emailLogin("nobody@example.com", "password1")
            #expect(wrong.status == 401 && wrong.code == "InvalidPassword" && wrong.message == "invalid username/password")
            #expect(unknown.body == wrong.body && unknown.status == wrong.status)
        }
    }

    @Test(arguments: ["12345", String(repeating: "x", count: 129)])
    func passwordLength(password: String) async throws {
        try await TestServer.run { c in
            let r = try await c.userpass("register", ["email": "d@example.com", "password": .string(password)])
            #expect(r.status == 400 && r.code == "BadRequest" && r.message == "password must be between 6 and 128 characters")
        }
    }

    @Test func resendConfirmationAndSingleUseTokens() async throws {
        try await TestServer.run { c in
            #expect(try await c.userpass("register", ["email": "e@example.com", "password": "password1"]).status == 201)
            #expect(try await c.userpass("confirm/send", ["email": "e@example.com"]).status == 200)
            let mails = try await c.outbox("e@example.com", kind: "confirm")
            #expect(mails.count == 2)
            // A new mail does not cancel the one before (it may be on its way); the first token
            // used spends both.
            let link = try #require(mails[1]["link"]?.stringValue)
            #expect(link.contains("token=\(mails[1]["token"]!.stringValue!)&tokenId=\(mails[1]["tokenId"]!.stringValue!)"))
            #expect(try await c.userpass("confirm", ["token": mails[0]["token"]!, "tokenId": mails[0]["tokenId"]!]).status == 200)
            let reuse = try await c.userpass("confirm", ["token": mails[0]["token"]!, "tokenId": mails[0]["tokenId"]!])
            #expect(reuse.status == 400 && reuse.message == "invalid token data")
            let other = try await c.userpass("confirm", ["token": mails[1]["token"]!, "tokenId": mails[1]["tokenId"]!])
            #expect(other.status == 400 && other.message == "invalid token data")
            let resend = try await c.userpass("confirm/send", ["email": "e@example.com"])
            #expect(resend.code == "UserAlreadyConfirmed" && resend.message == "already confirmed")
            let unknown = try await c.userpass("confirm/send", ["email": "nobody@example.com"])
            #expect(unknown.status == 404 && unknown.code == "UserNotFound")
        }
    }

    @Test func resetPasswordByEmail() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("f@example.com", "password1")
            #expect(try await c.userpass("reset/send", ["email": "f@example.com"]).status == 200)
            let mail = try #require(try await c.outbox("f@example.com", kind: "reset").last)
            let bad = try await c.userpass("reset", ["token": "0000", "tokenId": mail["tokenId"]!, "password": "password2"])
            #expect(bad.status == 400 && bad.message == "invalid token data")
            let garbageId = try await c.userpass("reset", ["token": mail["token"]!, "tokenId": "nope", "password": "password2"])
            #expect(garbageId.message == "invalid token data")
            #expect(try await c.userpass("reset", ["token": mail["token"]!, "tokenId": mail["tokenId"]!, "password": "password2"]).status == 200)
            #expect(try await c.emailLogin("f@example.com", "password1").code == "InvalidPassword")
            #expect(try await c.emailLogin("f@example.com", "password2").status == 200)
            let unknown = try await c.userpass("reset/send", ["email": "nobody@example.com"])
            #expect(unknown.status == 404 && unknown.code == "UserNotFound")
        }
    }

    @Test func linksExpireAfterThirtyMinutes() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("g@example.com")
            #expect(try await c.userpass("reset/send", ["email": "g@example.com"]).status == 200)
            let mail = try #require(try await c.outbox("g@example.com", kind: "reset").last)
            #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 1801]).status == 200)
            let late = try await c.userpass("reset", ["token": mail["token"]!, "tokenId": mail["tokenId"]!, "password": "password2"])
            #expect(late.status == 400 && late.message == "invalid token data")
        }
    }

    @Test func autoConfirmAndConfiguredURLs() async throws {
        var app = AppConfiguration(id: "local")
        app.providers.userpass?.autoConfirm = true
        app.providers.userpass?.resetPasswordUrl = "https://example.com/reset"
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            #expect(try await c.userpass("register", ["email": "h@example.com", "password": "password1"]).status == 201)
            #expect(try await c.outbox("h@example.com", kind: "confirm").isEmpty)
            #expect(try await c.emailLogin("h@example.com", "password1").status == 200)
            let call = try await c.userpass("confirm/call", ["email": "h@example.com"])
            #expect(call.status == 400 && call.message == "automatic confirmation is enabled")
            #expect(try await c.userpass("reset/send", ["email": "h@example.com"]).status == 200)
            let link = try await c.outbox("h@example.com", kind: "reset").last?["link"]?.stringValue
            #expect(link?.hasPrefix("https://example.com/reset?token=") == true)
        }
    }
}
