import AuthProtocol
import AuthServer
import Foundation
import PostgresTestSupport
import Testing

/// Two servers on one PostgreSQL database, through HTTP (issue 17's "correct across
/// instances"): what one does, the other sees at once.
@Suite struct SharedPostgresTests {
    /// Runs `body` with two servers (A and B) on one new database of the test cluster,
    /// with the plugins of `plugins`.
    static func twoServers(plugins: [String: String] = [:], _ body: @escaping @Sendable (Client, Client) async throws -> Void) async throws {
        let cluster = try await PostgresCluster.shared()
        let name = try await cluster.makeDatabase()
        let database = try PostgresDatabase(url: "postgres://authsh@:\(cluster.port)/\(name)?host=\(cluster.directory)&pool=4",
                                            key: "database", passwordAllowed: false, environment: [:])
        let dir = try PluginDirectory(plugins)
        var config = TestServer.configuration(plugins: dir.path)
        config.database = .postgres(database)
        let shared = config
        try await TestServer.run(shared) { (a: Client) async throws in
            try await TestServer.run(shared) { (b: Client) async throws in try await body(a, b) }
        }
    }

    @Test func whatOneServerDoesTheOtherSees() async throws {
        try await Self.twoServers(plugins: ["hello.lua": #"return function() return "hello" end"#,
                                            "count.lua": #"return function() local n = (context.store.get("n") or 0) + 1; context.store.set("n", n); return n end"#]) { a, b in
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
}
