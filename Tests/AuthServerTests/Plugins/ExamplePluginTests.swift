// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// The repository's example plugins (`plugins/`), each through the HTTP API, with the
/// provider contracts of docs/protocol/wire-protocol.md sections 6 and 7.
@Suite(.timeLimit(.minutes(5))) struct ExamplePluginTests {
    static func config(_ configure: (inout AppConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        TestServer.withPlugins(PluginDirectory.examples) { app in
            app.providers.customFunction = .init()
            configure(&app)
        }
    }

    static func confirmation(_ app: inout AppConfiguration) {
        app.providers.userpass?.runConfirmationFunction = true
        app.providers.userpass?.confirmationFunctionName = "confirm"
        app.values = ["refuseDomains": ["spam.test"]]
    }

    static func resetFunction(_ app: inout AppConfiguration) {
        app.providers.userpass?.autoConfirm = true
        app.providers.userpass?.runResetFunction = true
        app.providers.userpass?.resetFunctionName = "reset"
    }

    // MARK: custom-function login (login.lua)

    @Test func customFunctionLoginFindsOrCreatesTheUser() async throws {
        try await TestServer.run(Self.config()) { (c: Client) async throws in
            let first = try await c.login("custom-function", ["username": "Ada", "options": ["device": ["appId": "x"]]])
            #expect(first.status == 200)
            let again = try await c.login("custom-function", ["username": "ada"])
            #expect(again["user_id"] == first["user_id"])
            let profile = try await c.profile(try #require(first["access_token"]))
            let identity = profile.body["identities"]?.arrayValue?.first
            #expect(identity?["id"] == "user:ada")
            #expect(identity?["provider_type"] == "custom-function")
            #expect(profile.body["data"]?["name"] == "Ada")
            let other = try await c.login("custom-function", ["username": "grace"])
            #expect(other["user_id"] != first["user_id"])
        }
    }

    @Test func customFunctionErrorIsAnAuthErrorWithItsMessage() async throws {
        try await TestServer.run(Self.config { $0.values = ["blockedUsernames": ["mallory"]] }) { (c: Client) async throws in
            let refused = try await c.login("custom-function", ["username": "mallory"])
            #expect(refused.status == 401 && refused.code == "AuthError")
            #expect(refused.message == "user mallory may not log in")
            let bad = try await c.login("custom-function", ["username": "not ok!"])
            #expect(bad.status == 401 && bad.message == "username must be 1 to 64 letters, digits, '_', '.' or '-'")
        }
    }

    @Test func zeroConfigEnablesCustomFunctionWhenAPluginExportsLogin() async throws {
        try await TestServer.run(TestServer.configuration(plugins: PluginDirectory.examples)) { (c: Client) async throws in
            #expect(try await c.login("custom-function", ["username": "ada"]).status == 200)
        }
        try await TestServer.run(TestServer.configuration()) { (c: Client) async throws in
            #expect(try await c.login("custom-function", ["username": "ada"]).code == "AuthProviderNotFound")
        }
    }

    // MARK: confirmation function (confirm.lua)

    @Test func confirmationFunctionSuccessConfirmsAtOnce() async throws {
        try await TestServer.run(Self.config(Self.confirmation)) { (c: Client) async throws in
            let r = try await c.userpass("register", ["email": "ada@example.com", "password": "password1"])
            #expect(r.status == 201)
            #expect(try await c.emailLogin("ada@example.com", "password1").status == 200)
            #expect(try await c.outbox("ada@example.com", kind: "confirm").isEmpty)
        }
    }

    @Test func confirmationFunctionPendingWaitsForTheToken() async throws {
        try await TestServer.run(Self.config(Self.confirmation)) { (c: Client) async throws in
            #expect(try await c.userpass("register", ["email": "bob@elsewhere.test", "password": "password1"]).status == 201)
            let pending = try await c.emailLogin("bob@elsewhere.test", "password1")
            #expect(pending.status == 401 && pending.message == "confirmation required")
            // The plugin mailed its own link through context.email.send.
            let mail = try #require(try await c.outbox("bob@elsewhere.test", kind: "plugin").last)
            let body = try #require(mail["body"]?.stringValue)
            let token = try #require(body.split(separator: "token=").dropFirst().first?.split(separator: "&").first)
            let tokenId = try #require(body.split(separator: "tokenId=").last?.split(separator: " ").first)
            // confirm/call runs the function again: still pending, a new token.
            #expect(try await c.userpass("confirm/call", ["email": "bob@elsewhere.test"]).status == 200)
            let latest = try #require(try await c.outbox("bob@elsewhere.test", kind: "plugin").last?["body"]?.stringValue)
            #expect(latest != body)
            let newToken = try #require(latest.split(separator: "token=").dropFirst().first?.split(separator: "&").first)
            let newId = try #require(latest.split(separator: "tokenId=").last?.split(separator: " ").first)
            // Both tokens are valid until one is used; then neither is.
            #expect(try await c.userpass("confirm", ["token": .string(String(newToken)), "tokenId": .string(String(newId))]).status == 200)
            #expect(try await c.userpass("confirm", ["token": .string(String(token)), "tokenId": .string(String(tokenId))]).status == 400)
            #expect(try await c.emailLogin("bob@elsewhere.test", "password1").status == 200)
        }
    }

    @Test func confirmationFunctionFailCreatesNoAccount() async throws {
        try await TestServer.run(Self.config(Self.confirmation)) { (c: Client) async throws in
            let r = try await c.userpass("register", ["email": "eve@spam.test", "password": "password1"])
            #expect(r.status == 400 && r.code == "BadRequest" && r.message == #"failed to confirm user "eve@spam.test""#)
            let again = try await c.userpass("confirm/call", ["email": "eve@spam.test"])
            #expect(again.status == 404 && again.code == "UserNotFound")
        }
    }

    @Test func confirmCallWithAutoConfirmIsAnError() async throws {
        try await TestServer.run(Self.config { $0.providers.userpass?.autoConfirm = true }) { (c: Client) async throws in
            _ = try await c.userpass("register", ["email": "ada@example.com", "password": "password1"])
            let r = try await c.userpass("confirm/call", ["email": "ada@example.com"])
            #expect(r.status == 400 && r.message == "automatic confirmation is enabled")
        }
    }

    // MARK: reset function (reset.lua)

    @Test func resetFunctionWithTheRightAnswerSucceeds() async throws {
        try await TestServer.run(Self.config(Self.resetFunction)) { (c: Client) async throws in
            _ = try await c.userpass("register", ["email": "ada@example.com", "password": "password1"])
            let token = try #require(try await c.emailLogin("ada@example.com", "password1")["access_token"])
            #expect(try await c.function("setSecurityAnswer", ["  Blue "], token: token).body == true)
            let r = try await c.userpass(
                "reset/call",
                [
                    "email": "ada@example.com", "password": "password2",
                    "arguments": [["answer": "blue"]],
                ])
            #expect(r.status == 200)
            #expect(try await c.emailLogin("ada@example.com", "password2").status == 200)
            #expect(try await c.emailLogin("ada@example.com", "password1").status == 401)
        }
    }

    @Test func resetFunctionWithAWrongAnswerFails() async throws {
        try await TestServer.run(Self.config(Self.resetFunction)) { (c: Client) async throws in
            _ = try await c.userpass("register", ["email": "ada@example.com", "password": "password1"])
            let token = try #require(try await c.emailLogin("ada@example.com", "password1")["access_token"])
            #expect(try await c.function("setSecurityAnswer", ["blue"], token: token).body == true)
            let r = try await c.userpass(
                "reset/call",
                [
                    "email": "ada@example.com", "password": "password2",
                    "arguments": [["answer": "red"]],
                ])
            #expect(r.status == 400 && r.code == "BadRequest" && r.message == #"failed to reset password for user "ada@example.com""#)
            #expect(try await c.emailLogin("ada@example.com", "password1").status == 200)
        }
    }

    @Test func resetFunctionPendingCompletesWithTheMailedToken() async throws {
        try await TestServer.run(Self.config(Self.resetFunction)) { (c: Client) async throws in
            _ = try await c.userpass("register", ["email": "ada@example.com", "password": "password1"])
            let r = try await c.userpass("reset/call", ["email": "ada@example.com", "password": "password2"])
            #expect(r.status == 200)
            // Pending changes nothing yet.
            #expect(try await c.emailLogin("ada@example.com", "password1").status == 200)
            let body = try #require(try await c.outbox("ada@example.com", kind: "plugin").last?["body"]?.stringValue)
            let lines = body.split(separator: "\n")
            let token = try #require(lines.first { $0.hasPrefix("token=") }?.dropFirst(6))
            let tokenId = try #require(lines.first { $0.hasPrefix("tokenId=") }?.dropFirst(8))
            let done = try await c.userpass(
                "reset",
                [
                    "token": .string(String(token)), "tokenId": .string(String(tokenId)),
                    "password": "password3",
                ])
            #expect(done.status == 200)
            #expect(try await c.emailLogin("ada@example.com", "password3").status == 200)
        }
    }

    @Test func resetSendIsRefusedWhileAResetFunctionIsConfigured() async throws {
        try await TestServer.run(Self.config(Self.resetFunction)) { (c: Client) async throws in
            _ = try await c.userpass("register", ["email": "ada@example.com", "password": "password1"])
            let r = try await c.userpass("reset/send", ["email": "ada@example.com"])
            #expect(r.status == 400 && r.code == "BadRequest")
            let unknown = try await c.userpass("reset/call", ["email": "nobody@example.com", "password": "password2"])
            #expect(unknown.status == 404 && unknown.code == "UserNotFound")
        }
    }

    @Test func exampleRoleFunctionsRefuseToBeCalledByUsers() async throws {
        // Without a role in the config they are ordinary functions; they refuse all the same.
        try await TestServer.run(TestServer.configuration(plugins: PluginDirectory.examples)) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let request: EJSON = ["username": "victim@example.com", "token": "t", "tokenId": "i"]
            for name in ["reset", "confirm"] {
                let r = try await c.function(name, [request], token: token)
                #expect(r.code == "FunctionExecutionError" && r.message?.hasSuffix("\(name) is not a callable function") == true)
            }
            #expect(try await c.outbox("victim@example.com", kind: "plugin").isEmpty)
        }
    }

    // MARK: callable functions (functions.lua)

    @Test func callableExamples() async throws {
        try await TestServer.run(Self.config()) { (c: Client) async throws in
            let login = try await c.anonymous()
            let token = try #require(login["access_token"])
            #expect(try await c.function("greet", ["Ada"], token: token).body == "Hello, Ada!")
            #expect(try await c.function("sum", [.int32(1), .int32(2)], token: token).body == .int32(3))
            #expect(try await c.function("sum", [.int32(1), .double(2.5)], token: token).body == .double(3.5))
            let bad = try await c.function("sum", [.int32(1), "x"], token: token)
            #expect(bad.code == "FunctionExecutionError" && bad.message?.hasSuffix("argument 2 is not a number") == true)
            let me = try await c.function("whoami", token: token).body
            #expect(me["id"]?.stringValue == login["user_id"] && me["identities"] == ["anon-user"])
            #expect(try await c.function("visit", token: token).body == .int32(1))
            #expect(try await c.function("visit", token: token).body == .int32(2))
            let refresh = try #require(login["refresh_token"])
            let access = try #require(try await c.refresh(refresh)["access_token"])
            #expect(try SessionTests.claims(access)["user_data"]?["visits"]?.integerValue == 2)
        }
    }

    // MARK: hooks (hooks.lua)

    @Test func hookExamplesGateSignUpsAndPutRolesInTokens() async throws {
        let config = Self.config { app in
            app.hooks.beforeUserCreated = "onlyOurDomains"
            app.hooks.accessTokenClaims = "rolesClaim"
            app.values = ["signupDomains": ["example.com"]]
            app.providers.userpass?.autoConfirm = true
        }
        try await TestServer.run(config) { (c: Client) async throws in
            let anonymous = try await c.anonymous()
            #expect(anonymous.code == "HookRefused" && anonymous.message == "sign-ups need an email address", "\(anonymous.body)")
            for email in ["mallory@example.org", "ann@Example.com"] {
                let r = try await c.userpass("register", ["email": .string(email), "password": "password1"])
                #expect(r.status == 201)
            }
            let outsider = try await c.emailLogin("mallory@example.org", "password1")
            #expect(outsider.code == "HookRefused" && outsider.message == "sign-ups are open to example.com addresses only")
            let member = try await c.emailLogin("ann@Example.com", "password1")
            #expect(member.status == 200, "\(member.body)")
            let claims = try SessionTests.claims(try #require(member["access_token"]))
            #expect(claims["roles"] == ["member"] && claims["user_data"]?["roles"] == ["member"], "\(claims)")
            // Named by the config, they are no callable functions.
            let call = try await c.function("rolesClaim", token: try #require(member["access_token"]))
            #expect(call.code == "FunctionNotFound")
        }
    }
}
