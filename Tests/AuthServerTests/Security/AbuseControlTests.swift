// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// Rate limits, failed-login back-off and enumeration protection.
@Suite(.timeLimit(.minutes(5))) struct AbuseControlTests {
    static func app(_ configure: (inout AppConfiguration) -> Void = { _ in }) -> AppConfiguration {
        var app = AppConfiguration(id: "local")
        app.rateLimits.enabled = true
        configure(&app)
        return app
    }

    static func advance(_ c: Client, seconds: Int64) async throws {
        #expect(try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": .int64(seconds)]).status == 200)
    }

    @Test func overTheLimitIs429WithRetryAfterUntilTheWindowRefills() async throws {
        let app = Self.app { $0.rateLimits.limits[.anonymous] = .init(perAddress: 3, perAccount: 0, windowSeconds: 60) }
        // A frozen clock: nothing refills while a busy machine serves the requests.
        var config = TestServer.configuration(apps: [app])
        config.clock = ServerClock(frozenAt: ServerClock().now)
        try await TestServer.run(config) { c in
            for _ in 1...3 { #expect(try await c.anonymous().status == 200) }
            let refused = try await c.anonymous()
            #expect(refused.status == 429 && refused.code == "TooManyRequests", "\(refused.body)")
            // 3 per 60 s refill one every 20 s.
            let wait = try #require(refused.retryAfter.flatMap { Int($0) })
            #expect(wait == 20 && refused.message == "too many requests: try again in 20 seconds", "\(refused.body)")
            try await Self.advance(c, seconds: 20)
            #expect(try await c.anonymous().status == 200)
            #expect(try await c.anonymous().status == 429)
        }
    }

    @Test func limitsAreOnByDefaultExceptInDevMode() async throws {
        for dev in [false, true] {
            // A frozen clock: no bucket refills while a busy machine serves the 101 requests.
            var config = TestServer.configuration(dev: dev)
            config.clock = ServerClock(frozenAt: ServerClock().now)
            try await TestServer.run(config) { c in
                var statuses: [Int] = []
                for _ in 0...100 { statuses.append(try await c.anonymous().status) }
                #expect(statuses.last == (dev ? 200 : 429), "dev \(dev)")
                #expect(statuses.dropLast().allSatisfy { $0 == 200 })
            }
        }
    }

    @Test func mailsToOnePersonAreLimitedPerAccount() async throws {
        try await TestServer.run(TestServer.configuration(apps: [Self.app()])) { c in
            try await c.registerConfirmed("p@example.com")
            try await c.registerConfirmed("q@example.com")
            for _ in 1...5 { #expect(try await c.userpass("reset/send", ["email": "p@example.com"]).status == 200) }
            let refused = try await c.userpass("reset/send", ["email": "p@example.com"])
            #expect(refused.status == 429 && refused.retryAfter != nil)
            // Another person, from the same address, is still served.
            #expect(try await c.userpass("reset/send", ["email": "q@example.com"]).status == 200)
        }
    }

    @Test func wrongPasswordsBackOffPerAddressWithoutLockingTheOwnerOut() async throws {
        var config = TestServer.configuration(apps: [Self.app()])
        config.port = 0
        try await TestServer.run(config, mode: .live) { c in
            try await c.registerConfirmed("b@example.com")
            let port = try #require(c.client.port)
            func login(_ password: String, from source: String) async throws -> String {
                let body = #"{"provider":"local-userpass","username":"b@example.com","password":"\#(password)"}"#
                let answer = try await RawHTTP.exchange(
                    port: port,
                    "POST \(Routes.login("local", provider: "local-userpass")) HTTP/1.1\r\n"
                        + "Host: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n\(body)", from: source)
                return String(answer.prefix(12))
            }
            for _ in 1...6 { #expect(try await login("wrong-guess", from: "127.0.0.2") == "HTTP/1.1 401") }
            // The sixth failure started a back-off of 2 s, which a slow machine may spend before
            // the next request: guess until refused (a refusal is not a failure), then at once
            // the right password must be refused too, before it is looked at. If the window
            // ran out between the two (the right password got in, clearing the back-off), fail
            // six more times and look again.
            var rightRefused = false
            for attempt in 1...3 where !rightRefused {
                if attempt > 1 { for _ in 1...6 { _ = try await login("wrong-guess", from: "127.0.0.2") } }
                var refused = false
                for _ in 1...3 where !refused { refused = try await login("wrong-guess", from: "127.0.0.2") == "HTTP/1.1 429" }
                #expect(refused)
                rightRefused = try await login("password1", from: "127.0.0.2") == "HTTP/1.1 429"
            }
            #expect(rightRefused)
            // The owner, from another address, logs in.
            #expect(try await login("password1", from: "127.0.0.3") == "HTTP/1.1 200")
            // After the wait, the first address may try again.
            try await Self.advance(c, seconds: 20)
            #expect(try await login("password1", from: "127.0.0.2") == "HTTP/1.1 200")
        }
    }

    /// The status line of an email/password login sent from loopback address `source`.
    static func login(port: Int, _ email: String, _ password: String, from source: String) async throws -> String {
        let body = #"{"provider":"local-userpass","username":"\#(email)","password":"\#(password)"}"#
        let answer = try await RawHTTP.exchange(
            port: port,
            "POST \(Routes.login("local", provider: "local-userpass")) HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)", from: source)
        return String(answer.prefix(12))
    }

    /// The per-account login limit (10 a minute) slows the addresses that fail on the account,
    /// never one that has not: whatever guessers do, from one address or many, and whatever
    /// else spends requests on that account (`auth/methods`), the owner's password is checked.
    @Test func theAccountLimitNeverStopsAnAddressThatHasNotFailed() async throws {
        // 10 per account as by default, over a day: what refills while a busy machine runs
        // the test is a fraction of a try.
        let app = Self.app { $0.rateLimits.limits[.login] = .init(perAddress: 0, perAccount: 10, windowSeconds: 86_400) }
        try await TestServer.run(TestServer.configuration(apps: [app]), mode: .live) { c in
            try await c.registerConfirmed("owner@example.com")
            let port = try #require(c.client.port)
            // One address tries 11 times (back-off refuses some: they count all the same).
            for _ in 1...11 { _ = try await Self.login(port: port, "owner@example.com", "wrong-guess", from: "127.0.0.2") }
            for _ in 1...11 { _ = try await c.call(.get, Routes.app("local") + "/auth/methods?email=owner@example.com") }
            #expect(try await Self.login(port: port, "owner@example.com", "password1", from: "127.0.0.3") == "HTTP/1.1 200")
            // Eleven addresses fail once each: the account's failures are over its limit, so an
            // address that failed is stopped, right password or not ...
            for n in 10...20 { #expect(try await Self.login(port: port, "owner@example.com", "wrong-guess", from: "127.0.0.\(n)") == "HTTP/1.1 401") }
            #expect(try await Self.login(port: port, "owner@example.com", "wrong-guess", from: "127.0.0.10") == "HTTP/1.1 429")
            #expect(try await Self.login(port: port, "owner@example.com", "password1", from: "127.0.0.11") == "HTTP/1.1 429")
            // ... and the owner, from an address that has not failed, still logs in.
            #expect(try await Self.login(port: port, "owner@example.com", "password1", from: "127.0.0.4") == "HTTP/1.1 200")
        }
    }

    @Test func enumerationProtectionAnswersAlikeForEveryAddress() async throws {
        let dir = try PluginDirectory(["reset.lua": #"return function(req) return { status = "fail" } end"#])
        let protected = TestServer.withPlugins(dir.path) { $0.emailEnumerationProtection = true }
        try await TestServer.run(protected) { (c: Client) async throws in
            try await c.registerConfirmed("known@example.com")
            // register of a taken email: as a new one, and its owner is told.
            let taken = try await c.userpass("register", ["email": "known@example.com", "password": "password9"])
            let fresh = try await c.userpass("register", ["email": "fresh@example.com", "password": "password9"])
            #expect(taken.status == fresh.status && taken.body == fresh.body && taken.status == 201)
            let notice = try await c.outbox("known@example.com", kind: "notice")
            #expect(notice.count == 1 && notice.first?["token"] == "")
            #expect(try await c.emailLogin("known@example.com", "password1").status == 200)
            for action in ["confirm/send", "reset/send"] {
                let known = try await c.userpass(action, ["email": "known@example.com"])
                let unknown = try await c.userpass(action, ["email": "nobody@example.com"])
                #expect(known.status == unknown.status && known.body == unknown.body && unknown.status == 200, "\(action)")
            }
            #expect(try await c.outbox("nobody@example.com", kind: "reset").isEmpty)
        }
        let withFunction = TestServer.withPlugins(dir.path) {
            $0.emailEnumerationProtection = true
            $0.providers.userpass?.runResetFunction = true
            $0.providers.userpass?.resetFunctionName = "reset"
        }
        try await TestServer.run(withFunction) { (c: Client) async throws in
            try await c.registerConfirmed("known@example.com")
            let known = try await c.userpass("reset/call", ["email": "known@example.com", "password": "password2"])
            let unknown = try await c.userpass("reset/call", ["email": "nobody@example.com", "password": "password2"])
            #expect(known.status == 400 && unknown.status == 400 && known.code == unknown.code)
            #expect(known.message == #"failed to reset password for user "known@example.com""#)
            #expect(unknown.message == #"failed to reset password for user "nobody@example.com""#)
        }
    }

    /// `confirm/call` answers alike for an email with no account, a confirmed account and one
    /// still pending: it used to answer 404 `UserNotFound` and 400 `UserAlreadyConfirmed`.
    @Test func enumerationProtectionCoversConfirmCall() async throws {
        let dir = try PluginDirectory([
            "confirm.lua": #"""
            return function(req)
              if req.username:sub(1, 3) == "ok@" then return { status = "success" } end
              return { status = "pending" }
            end
            """#
        ])
        let config = TestServer.withPlugins(dir.path) {
            $0.emailEnumerationProtection = true
            $0.providers.userpass?.runConfirmationFunction = true
            $0.providers.userpass?.confirmationFunctionName = "confirm"
        }
        try await TestServer.run(config) { (c: Client) async throws in
            for email in ["ok@example.com", "wait@example.com"] {
                #expect(try await c.userpass("register", ["email": .string(email), "password": "password1"]).status == 201)
            }
            #expect(try await c.emailLogin("ok@example.com", "password1").status == 200, "confirmed by the function")
            var answers: [Reply] = []
            for email in ["ok@example.com", "wait@example.com", "nobody@example.com"] {
                answers.append(try await c.userpass("confirm/call", ["email": .string(email)]))
            }
            #expect(answers.allSatisfy { $0.status == 200 && $0.body == answers[0].body }, "\(answers.map { ($0.status, $0.body) })")
        }
        // Without protection it tells, as App Services did.
        let open = TestServer.withPlugins(dir.path) {
            $0.providers.userpass?.runConfirmationFunction = true
            $0.providers.userpass?.confirmationFunctionName = "confirm"
        }
        try await TestServer.run(open) { (c: Client) async throws in
            #expect(try await c.userpass("register", ["email": "ok@example.com", "password": "password1"]).status == 201)
            #expect(try await c.userpass("confirm/call", ["email": "nobody@example.com"]).code == "UserNotFound")
            #expect(try await c.userpass("confirm/call", ["email": "ok@example.com"]).code == "UserAlreadyConfirmed")
        }
    }

    @Test func withoutProtectionTheAnswersTellAsAppServicesDid() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("known@example.com")
            #expect(try await c.userpass("register", ["email": "known@example.com", "password": "password9"]).status == 409)
            let unknown = try await c.userpass("reset/send", ["email": "nobody@example.com"])
            #expect(unknown.status == 404 && unknown.code == "UserNotFound")
        }
    }
}
