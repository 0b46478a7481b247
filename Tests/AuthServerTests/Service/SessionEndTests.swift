// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import GRDB
import Testing

/// Sessions end when they should: a password reset ends every session of the user, deleting
/// or disabling an API key ends the sessions it opened, a deleted user's access token calls
/// nothing, on every server sharing the database; anonymous accounts end after 90 days.
@Suite(.timeLimit(.minutes(5))) struct SessionEndTests {
    /// Every token of a login: both must be refused once the session has ended.
    struct Session {
        var access: String
        var refresh: String
    }

    static func session(_ reply: Reply) throws -> Session {
        Session(access: try #require(reply["access_token"]), refresh: try #require(reply["refresh_token"]))
    }

    static func expectEnded(_ s: Session, _ c: Client, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let refresh = try await c.refresh(s.refresh)
        #expect(refresh.status == 401 && refresh.code == "InvalidSession", "refresh: \(refresh.body)", sourceLocation: sourceLocation)
        let profile = try await c.profile(s.access)
        #expect(profile.status == 401 && profile.code == "InvalidSession", "profile: \(profile.body)", sourceLocation: sourceLocation)
    }

    static func expectLive(_ s: Session, _ c: Client, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let refreshed = try await c.refresh(s.refresh)
        #expect(refreshed.status == 201, sourceLocation: sourceLocation)
        #expect(try await c.profile(refreshed["access_token"] ?? s.access).status == 200, sourceLocation: sourceLocation)
    }

    @Test func aResetByEmailEndsEverySessionOfTheUser() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("r@example.com")
            try await c.registerConfirmed("other@example.com")
            let first = try Self.session(try await c.emailLogin("r@example.com", "password1"))
            let second = try Self.session(try await c.emailLogin("r@example.com", "password1"))
            let bystander = try Self.session(try await c.emailLogin("other@example.com", "password1"))
            #expect(try await c.userpass("reset/send", ["email": "r@example.com"]).status == 200)
            let mail = try #require(try await c.outbox("r@example.com", kind: "reset").last)
            #expect(
                try await c.userpass(
                    "reset",
                    [
                        "token": mail["token"]!, "tokenId": mail["tokenId"]!,
                        "password": "password2",
                    ]
                ).status == 200)
            try await Self.expectEnded(first, c)
            try await Self.expectEnded(second, c)
            try await Self.expectLive(bystander, c)
            #expect(try await c.emailLogin("r@example.com", "password2").status == 200)
        }
    }

    @Test func aResetByFunctionEndsEverySessionOfTheUser() async throws {
        let dir = try PluginDirectory(["reset.lua": #"return function(req) return { status = "success" } end"#])
        let config = TestServer.withPlugins(dir.path) { app in
            app.providers.userpass?.runResetFunction = true
            app.providers.userpass?.resetFunctionName = "reset"
        }
        try await TestServer.run(config) { (c: Client) async throws in
            try await c.registerConfirmed("f@example.com")
            let before = try Self.session(try await c.emailLogin("f@example.com", "password1"))
            #expect(try await c.userpass("reset/call", ["email": "f@example.com", "password": "password2"]).status == 200)
            try await Self.expectEnded(before, c)
            #expect(try await c.emailLogin("f@example.com", "password2").status == 200)
        }
    }

    @Test func aLaterResetMailDoesNotCancelAnEarlierOne() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("m@example.com")
            #expect(try await c.userpass("reset/send", ["email": "m@example.com"]).status == 200)
            #expect(try await c.userpass("reset/send", ["email": "m@example.com"]).status == 200)
            let mails = try await c.outbox("m@example.com", kind: "reset")
            #expect(mails.count == 2)
            #expect(
                try await c.userpass(
                    "reset",
                    [
                        "token": mails[0]["token"]!, "tokenId": mails[0]["tokenId"]!,
                        "password": "password2",
                    ]
                ).status == 200)
            // Used once, every reset token of that address is spent.
            let second = try await c.userpass(
                "reset",
                [
                    "token": mails[1]["token"]!, "tokenId": mails[1]["tokenId"]!,
                    "password": "password3",
                ])
            #expect(second.status == 400 && second.message == "invalid token data")
            #expect(try await c.emailLogin("m@example.com", "password2").status == 200)
        }
    }

    @Test func deletingOrDisablingAnAPIKeyEndsTheSessionsItOpened() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("k@example.com")
            let owner = try Self.session(try await c.emailLogin("k@example.com", "password1"))
            func create(_ name: String) async throws -> (id: String, key: String) {
                let r = try await c.call(.post, Routes.apiKeys, json: ["name": .string(name)], token: owner.refresh)
                return (try #require(r["_id"]), try #require(r["key"]))
            }
            let deleted = try await create("deleted"), disabled = try await create("disabled")
            let viaDeleted = try Self.session(try await c.login("api-key", ["provider": "api-key", "key": .string(deleted.key)]))
            let viaDisabled = try Self.session(try await c.login("api-key", ["provider": "api-key", "key": .string(disabled.key)]))
            #expect(try await c.call(.delete, Routes.apiKey(deleted.id), token: owner.refresh).status == 200)
            try await Self.expectEnded(viaDeleted, c)
            try await Self.expectLive(viaDisabled, c)
            #expect(try await c.call(.put, Routes.apiKey(disabled.id) + "/disable", token: owner.refresh).status == 200)
            try await Self.expectEnded(viaDisabled, c)
            try await Self.expectLive(owner, c)
        }
    }

    @Test func aDeletedUserCallsNoFunctionOnAnyServerOfTheDatabase() async throws {
        let dir = try PluginDirectory(["hello.lua": #"return function() return "hello" end"#])
        let data = Scratch.path("shared")
        defer { try? FileManager.default.removeItem(atPath: data) }
        var config = TestServer.withPlugins(dir.path)
        config.database = .directory(data)
        let shared = config
        try await TestServer.run(shared) { (a: Client) async throws in
            try await TestServer.run(shared) { (b: Client) async throws in
                let token = try await a.anonymousToken()
                #expect(try await b.function("hello", token: token).body == "hello")
                #expect(try await a.call(.delete, Routes.deleteUser, token: token).status == 200)
                for server in [a, b] {
                    let r = try await server.function("hello", token: token)
                    #expect(r.status == 401 && r.code == "InvalidSession", "\(r.body)")
                }
            }
        }
    }

    @Test func aDisabledUsersTokensAreRefusedEverywhere() async throws {
        // No route disables a user yet (the admin API will): the test sets the flag in the database.
        let dir = try PluginDirectory(["hello.lua": #"return function() return "hello" end"#])
        let data = Scratch.path("disabled")
        defer { try? FileManager.default.removeItem(atPath: data) }
        var config = TestServer.withPlugins(dir.path)
        config.database = .directory(data)
        try await TestServer.run(config) { (c: Client) async throws in
            let s = try Self.session(try await c.anonymous())
            #expect(try await c.function("hello", token: s.access).body == "hello")
            let db = try DatabaseQueue(path: data + "/authsh.sqlite")
            try await db.write { try $0.execute(sql: "UPDATE users SET disabled = 1") }
            for r in [try await c.function("hello", token: s.access), try await c.profile(s.access), try await c.refresh(s.refresh)] {
                #expect(r.status == 401 && r.code == "UserDisabled", "\(r.body)")
            }
        }
    }

    @Test func anonymousAccountsEndAfterNinetyDays() async throws {
        try await TestServer.run { c in
            let old = try Self.session(try await c.anonymous())
            let linked = try Self.session(try await c.anonymous())
            try await c.registerConfirmed("l@example.com")
            #expect(try await c.emailLogin("l@example.com", "password1", link: linked.access).status == 200)
            let advance = { (days: Int64) in
                try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": .int64(days * 86_400)])
            }
            #expect(try await advance(89).status == 200)
            try await Self.expectLive(old, c)
            let young = try Self.session(try await c.anonymous())
            #expect(try await advance(2).status == 200)
            try await Self.expectEnded(old, c)
            try await Self.expectLive(young, c)
            // A user that linked another identity is no longer anonymous, and stays.
            #expect(try await c.refresh(linked.refresh).status == 201)
        }
    }
}
