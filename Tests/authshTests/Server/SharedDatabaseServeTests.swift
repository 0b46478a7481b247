// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import TestSupport
import Testing

/// Two real `authsh serve` processes on one PostgreSQL database (a private cluster the tests
/// start), and `authsh serve ... migrate`.
@Suite(.binary, .timeLimit(.minutes(5))) struct SharedDatabaseServeTests {
    /// Everything issue 17 lists as "correct across instances", with two real processes: a
    /// user registered on A confirms and logs in on B; tokens signed by one verify on the
    /// other; a session ended on one is refused on the other at once; a password reset on A
    /// ends the sessions used on B; an API key deleted on B logs in no more on A; plugin store
    /// values written through A are read through B; a user deleted on A calls nothing on B;
    /// two registrations of one email racing on A and B leave one account.
    @Test func twoProcessesShareEverythingTheyKeep() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.makeDatabase())
        // Migrating first is optional (each server migrates at start-up); it is idempotent.
        for _ in 1...2 {
            let migrate = try await Binary.run(["serve", "--database", url, "migrate"])
            #expect(migrate.status == 0 && migrate.stdout.hasPrefix("migrated postgres://authsh@"), "\(migrate.stderr)")
        }
        let processA = try await ServerProcess(["--dev", "--database", url])
        let processB = try await ServerProcess(["--dev", "--database", url])
        let a = JSONHTTP(origin: processA.origin), b = JSONHTTP(origin: processB.origin)
        let register = a.app() + "/auth/providers/local-userpass/register"

        #expect(try await a.send(.POST, register, json: #"{"email":"two@example.com","password":"password1"}"#).status == 201)
        let confirm = try await a.mail("two@example.com", kind: "confirm")
        #expect(
            try await b.send(
                .POST, b.app() + "/auth/providers/local-userpass/confirm",
                json: #"{"token":"\#(confirm.token)","tokenId":"\#(confirm.tokenId)"}"#
            ).status == 200)
        let onB = try await b.emailLogin("two@example.com", "password1")
        #expect(onB.status == 200, "\(onB.text)")
        let accessB = try #require(onB["access_token"]), refreshB = try #require(onB["refresh_token"])
        #expect(try await a.send(.GET, "/api/client/v2.0/auth/profile", token: accessB).status == 200, "B's token works on A")

        // Plugin store values written through A are read through B.
        #expect(try await a.call("visit", token: accessB).integer == 1)
        #expect(try await b.call("visit", token: accessB).integer == 2)

        // A session ended on A is refused on B at once (its access token and its refresh token).
        let onA = try await a.emailLogin("two@example.com", "password1")
        let accessA = try #require(onA["access_token"])
        #expect(try await a.send(.DELETE, "/api/client/v2.0/auth/session", token: refreshB).status == 200)
        #expect(try await b.send(.GET, "/api/client/v2.0/auth/profile", token: accessB).status == 401)
        #expect(try await b.send(.POST, "/api/client/v2.0/auth/session", token: refreshB).status == 401)

        // A password reset on A ends the sessions used on B.
        #expect(try await b.send(.GET, "/api/client/v2.0/auth/profile", token: accessA).status == 200)
        #expect(try await a.send(.POST, a.app() + "/auth/providers/local-userpass/reset/send", json: #"{"email":"two@example.com"}"#).status == 200)
        let reset = try await a.mail("two@example.com", kind: "reset")
        #expect(
            try await a.send(
                .POST, a.app() + "/auth/providers/local-userpass/reset",
                json: #"{"token":"\#(reset.token)","tokenId":"\#(reset.tokenId)","password":"password2"}"#
            ).status == 200)
        #expect(try await b.send(.GET, "/api/client/v2.0/auth/profile", token: accessA).status == 401)

        // An API key deleted on B logs in no more on A.
        let owner = try await b.emailLogin("two@example.com", "password2")
        let refresh = try #require(owner["refresh_token"]), access = try #require(owner["access_token"])
        let key = try await a.send(.POST, "/api/client/v2.0/auth/api_keys", json: #"{"name":"ci"}"#, token: refresh)
        let keyId = try #require(key["_id"], "\(key.text)"), secret = try #require(key["key"])
        let apiKeyLogin = a.app() + "/auth/providers/api-key/login"
        #expect(try await b.send(.POST, apiKeyLogin, json: #"{"key":"\#(secret)"}"#).status == 200)
        #expect(try await b.send(.DELETE, "/api/client/v2.0/auth/api_keys/" + keyId, token: refresh).status == 200)
        #expect(try await a.send(.POST, apiKeyLogin, json: #"{"key":"\#(secret)"}"#).status == 401)

        // A user deleted on A calls no function on B.
        #expect(try await b.call("greet", token: access).status == 200)
        #expect(try await a.send(.DELETE, "/api/client/v2.0/auth/delete", token: access).status == 200)
        #expect(try await b.call("greet", token: access).status == 401)

        // Two registrations of one email racing on A and B: one account, and a 409.
        for round in 0..<5 {
            let body = #"{"email":"race\#(round)@example.com","password":"password1"}"#
            async let first = a.send(.POST, register, json: body)
            async let second = b.send(.POST, b.app() + "/auth/providers/local-userpass/register", json: body)
            #expect([try await first.status, try await second.status].sorted() == [201, 409], "round \(round)")
        }
    }

    /// By every command that takes --database, and never repeated in the error.
    @Test func aPasswordOnTheCommandLineIsRefused() async throws {
        let url = "postgres://u:hunter2@db.example.com/authsh"
        for args in [["serve", "--database", url, "migrate"], ["audit", "--database", url], ["admin", "--database", url, "users", "list"]] {
            let r = try await Binary.run(args)
            #expect(r.status == 64 && r.stderr.contains("give it in PGPASSWORD"), "\(args[0]): \(r.stderr)")
            #expect(!r.stderr.contains("hunter2"), "\(args[0])")
        }
    }
}
