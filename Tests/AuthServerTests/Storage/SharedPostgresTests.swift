// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
import AuthServer
import Foundation
import HummingbirdTesting
import TestSupport
import Testing

/// Two servers on one PostgreSQL database, through HTTP (issue 17's "correct across
/// instances"): what one does, the other sees at once.
@Suite(.timeLimit(.minutes(5))) struct SharedPostgresTests {
    /// Runs `body` with two servers (A and B) on one new database of the test cluster,
    /// with the plugins of `plugins`, routed in-process or (`.live`) on loopback ports.
    static func twoServers(
        plugins: [String: String] = [:], apps: [AppConfiguration] = [AppConfiguration(id: "local")],
        publicURL: String? = nil, mode: TestingSetup = .router, clock: ServerClock? = nil,
        _ body: @escaping @Sendable (Client, Client) async throws -> Void
    ) async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        let database = try PostgresDatabase(
            url: "postgres://authsh@:\(cluster.port)/\(name)?host=\(cluster.directory)&pool=4",
            key: "database", passwordAllowed: false, environment: [:])
        let dir = try PluginDirectory(plugins)
        var config = TestServer.configuration(apps: apps, plugins: dir.path)
        config.database = .postgres(database)
        config.publicURL = publicURL
        if let clock { config.clock = clock }
        let shared = config
        try await TestServer.run(shared, mode: mode) { (a: Client) async throws in
            try await TestServer.run(shared, mode: mode) { (b: Client) async throws in try await body(a, b) }
        }
    }

    @Test func whatOneServerDoesTheOtherSees() async throws {
        try await Self.twoServers(plugins: [
            "hello.lua": #"return function() return "hello" end"#,
            "count.lua": #"return function() local n = (context.store.get("n") or 0) + 1; context.store.set("n", n); return n end"#,
        ]) { a, b in
            // Registered on A, confirmed and logged in on B; tokens signed by A work on B.
            #expect(try await a.userpass("register", ["email": "pat@example.com", "password": "password1"]).status == 201)
            let mail = try #require(try await a.outbox("pat@example.com", kind: "confirm").last)
            #expect(try await b.userpass("confirm", ["token": mail["token"]!, "tokenId": mail["tokenId"]!]).status == 200)
            let onB = try await b.emailLogin("pat@example.com", "password1")
            let onA = try await a.emailLogin("pat@example.com", "password1")
            let accessB = try #require(onB["access_token"]), accessA = try #require(onA["access_token"])
            #expect(try await a.profile(accessB).status == 200, "a token signed by B verifies on A")

            // Plugin store values written through A are read through B.
            let first = try await a.function("count", token: accessA)
            #expect(first.body == .int32(1), "\(first.body)")
            #expect(try await b.function("count", token: accessB).body == .int32(2))

            // A session ended on B is refused on A at once.
            let sessions = try await a.call(.get, Routes.base + "/auth/sessions", token: accessA).body.arrayValue ?? []
            let other = try #require(sessions.first { $0["current"] == false }?["id"]?.stringValue)
            #expect(try await b.call(.delete, Routes.base + "/auth/sessions/" + other, token: accessA).status == 200)
            #expect(try await a.profile(accessB).status == 401)
            #expect(try await a.refresh(try #require(onB["refresh_token"])).status == 401)

            // A password reset on A ends the sessions used on B.
            let again = try await b.emailLogin("pat@example.com", "password1")
            #expect(try await a.userpass("reset/send", ["email": "pat@example.com"]).status == 200)
            let reset = try #require(try await a.outbox("pat@example.com", kind: "reset").last)
            #expect(try await b.userpass("reset", ["token": reset["token"]!, "tokenId": reset["tokenId"]!, "password": "password2"]).status == 200)
            #expect(try await b.profile(try #require(again["access_token"])).status == 401)
            #expect(try await a.profile(accessA).status == 401)

            // An API key deleted on B logs in no more on A.
            let owner = try await a.emailLogin("pat@example.com", "password2")
            let refresh = try #require(owner["refresh_token"])
            let key = try await a.call(.post, Routes.apiKeys, json: ["name": "ci"], token: refresh)
            let keyId = try #require(key["_id"]), secret = try #require(key["key"])
            #expect(try await b.login("api-key", ["key": .string(secret)]).status == 200)
            #expect(try await b.call(.delete, Routes.apiKey(keyId), token: refresh).status == 200)
            let refused = try await a.login("api-key", ["key": .string(secret)])
            #expect(refused.status == 401, "\(refused.body)")

            // A user deleted on A calls no function on B.
            let token = try #require(owner["access_token"])
            #expect(try await b.function("hello", token: token).body == "hello")
            #expect(try await a.call(.delete, Routes.deleteUser, token: token).status == 200)
            let gone = try await b.function("hello", token: token)
            #expect(gone.status == 401 && gone.code == "InvalidSession", "\(gone.body)")
        }
    }

    @Test func twoServersRacingToRegisterOneEmailLeaveOneAccount() async throws {
        try await Self.twoServers { a, b in
            for round in 0..<5 {
                let email = "race\(round)@example.com"
                async let first = a.userpass("register", ["email": .string(email), "password": "password1"])
                async let second = b.userpass("register", ["email": .string(email), "password": "password1"])
                let statuses = [try await first.status, try await second.status].sorted()
                #expect(statuses == [201, 409], "round \(round): \(statuses)")
            }
        }
    }

    /// Behind a load balancer each request of a sign-in may reach another instance: a flow
    /// started on A comes back from the IdP to B, and B's login code is redeemed on A, once.
    @Test func aSignInStartedOnOneServerFinishesOnTheOther() async throws {
        let mock = try await OIDCMock()
        try await mock.setClaims("alice", ["email": "alice@example.com", "email_verified": true])
        var app = AppConfiguration(id: "local")
        var provider = OAuthProviderConfiguration(type: "oauth2-mock", clientId: "authsh-test-client", clientSecret: ConfigSecret("s3cret"))
        provider.issuer = mock.issuer
        app.providers.oauth = [provider.type: provider]
        // The public URL the IdP sends the browser back to: the load balancer's.
        let balancer = "http://balancer.invalid"
        try await Self.twoServers(apps: [app], publicURL: balancer, mode: .live) { a, b in
            let portA = try #require(a.client.port), portB = try #require(b.client.port)
            let (verifier, challenge) = DevIdP.pkce()
            let start = try await Web.send(
                "GET",
                "http://127.0.0.1:\(portA)" + Routes.login("local", provider: "oauth2-mock") + "?"
                    + FormEncoding.encode([
                        ("redirect", "http://127.0.0.1:9/cb"), ("state", "s1"),
                        ("code_challenge", challenge), ("code_challenge_method", "S256"),
                    ]))
            let authorize = try #require(start.location, "\(start.status) \(start.text)")
            let callback = try await mock.approve(authorize, sub: "alice")
            #expect(callback.hasPrefix(balancer + Routes.base + "/auth/callback?"), "\(callback)")
            let onB = "http://127.0.0.1:\(portB)" + callback.dropFirst(balancer.count)
            let back = try await Web.send("GET", onB)
            let loopback = try #require(back.location, "B finishes A's flow: \(back.status) \(back.text)")
            let fields = try #require(FormEncoding.decode(loopback.split(separator: "?", maxSplits: 1)[1]))
            let code = try #require(FormEncoding.value("code", in: fields), "\(loopback)")

            let login = try await a.login("oauth2-mock", ["loginCode": .string(code), "codeVerifier": .string(verifier)])
            #expect(login.status == 200, "A redeems B's code: \(login.body)")
            let again = try await b.login("oauth2-mock", ["loginCode": .string(code), "codeVerifier": .string(verifier)])
            #expect(again.status == 401, "a code is used once on every instance")
            let replay = try await Web.send("GET", "http://127.0.0.1:\(portA)" + callback.dropFirst(balancer.count))
            #expect(replay.status == 400, "a state is used once on every instance: \(replay.status) \(replay.text)")
        }
    }

    /// Wrong passwords sent to two instances in turn count as if sent to one: after the free
    /// ones, both make the address wait.
    @Test func failedPasswordsCountAcrossServers() async throws {
        var app = AppConfiguration(id: "local")
        app.rateLimits.enabled = true
        // A frozen clock: the back-off's wait does not pass while a busy machine serves the logins.
        try await Self.twoServers(apps: [app], clock: ServerClock(frozenAt: ServerClock().now)) { a, b in
            try await a.registerConfirmed("gus@example.com", "password1")
            let free = 5  // LoginBackoff.freeFailures
            for attempt in 0...free {
                let server = attempt.isMultiple(of: 2) ? a : b
                let wrong = try await server.emailLogin("gus@example.com", "wrong-password").status
                #expect(wrong == 401, "attempt \(attempt)")
            }
            for server in [a, b] {
                let waiting = try await server.emailLogin("gus@example.com", "password1").status
                #expect(waiting == 429, "every instance makes the address wait")
            }
        }
    }

    /// The rate limits hold for the deployment, not per instance: two servers on one database
    /// count one address's registrations, logins and one account's mails together (each would
    /// otherwise grant its own full share).
    @Test func rateLimitsHoldAcrossInstances() async throws {
        var app = AppConfiguration(id: "local")
        app.rateLimits.enabled = true
        app.rateLimits.limits[.register] = .init(perAddress: 3, perAccount: 0, windowSeconds: 3600)
        app.rateLimits.limits[.anonymous] = .init(perAddress: 4, perAccount: 0, windowSeconds: 3600)
        app.rateLimits.limits[.mail] = .init(perAddress: 0, perAccount: 2, windowSeconds: 3600)
        try await Self.twoServers(apps: [app]) { a, b in
            var statuses: [Int] = []
            for (n, server) in [a, b, a, b].enumerated() {
                statuses.append(try await server.userpass("register", ["email": .string("r\(n)@example.com"), "password": "password1"]).status)
            }
            #expect(statuses == [201, 201, 201, 429], "\(statuses)")
            var anonymous: [Int] = []
            for server in [a, b, a, b, a] { anonymous.append(try await server.login("anon-user", [:]).status) }
            #expect(anonymous == [200, 200, 200, 200, 429], "\(anonymous)")
            var mails: [Int] = []
            for server in [b, a, b] { mails.append(try await server.userpass("confirm/send", ["email": "r0@example.com"]).status) }
            #expect(!mails.prefix(2).contains(429) && mails.last == 429, "\(mails)")
        }
    }
}
