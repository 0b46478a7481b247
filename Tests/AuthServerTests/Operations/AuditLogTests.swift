// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Synchronization
import Testing

/// The audit log through HTTP: each auth event once, with its app, user, provider, outcome,
/// address and user agent; no password, token or key anywhere in it.
@Suite(.timeLimit(.minutes(5))) struct AuditLogTests {
    @Test func eachEventOnceAndNoSecret() async throws {
        let directory = Scratch.path("audit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plugins = try PluginDirectory(["spin.lua": "return function() while true do end end"])
        var app = AppConfiguration(id: "local")
        app.rateLimits.enabled = true
        app.rateLimits.limits[.register] = .init(perAddress: 2, perAccount: 0, windowSeconds: 3600)
        app.rateLimits.limits[.login] = .init(perAddress: 100, perAccount: 100, windowSeconds: 60)
        var config = TestServer.configuration(apps: [app], database: .directory(directory), plugins: plugins.path)
        config.pluginTimeLimit = .milliseconds(200)
        let found = Mutex<[String]>(["Pass-word-1", "Pass-word-2"])
        try await TestServer.run(config, mode: .live) { c in
            #expect(try await c.userpass("register", ["email": "au@example.com", "password": "Pass-word-1"]).status == 201)
            let confirm = try #require(try await c.outbox("au@example.com", kind: "confirm").last)
            #expect(try await c.userpass("confirm", ["token": confirm["token"]!, "tokenId": confirm["tokenId"]!]).status == 200)
            let login = try await c.emailLogin("au@example.com", "Pass-word-1")
            let access = try #require(login["access_token"]), refresh = try #require(login["refresh_token"])
            #expect(try await c.emailLogin("au@example.com", "wrong-one").status == 401)
            #expect(try await c.userpass("reset/send", ["email": "au@example.com"]).status == 200)
            let reset = try #require(try await c.outbox("au@example.com", kind: "reset").last)
            #expect(try await c.userpass("reset", ["token": reset["token"]!, "tokenId": reset["tokenId"]!, "password": "Pass-word-2"]).status == 200)
            found.withLock { $0 += [confirm["token"]!.stringValue!, reset["token"]!.stringValue!, access, refresh] }

            let owner = try await c.emailLogin("au@example.com", "Pass-word-2")
            let ownerRefresh = try #require(owner["refresh_token"]), ownerAccess = try #require(owner["access_token"])
            let key = try await c.call(.post, Routes.apiKeys, json: ["name": "ci"], token: ownerRefresh)
            let keyId = try #require(key["_id"]), secret = try #require(key["key"])
            found.withLock { $0 += [ownerRefresh, ownerAccess, secret] }
            #expect(try await c.call(.put, Routes.apiKey(keyId) + "/disable", token: ownerRefresh).status < 300)
            #expect(try await c.call(.put, Routes.apiKey(keyId) + "/enable", token: ownerRefresh).status < 300)
            #expect(try await c.call(.delete, Routes.apiKey(keyId), token: ownerRefresh).status < 300)
            #expect(try await c.function("spin", token: ownerAccess).status == 400)
            let other = try await c.emailLogin("au@example.com", "Pass-word-2")
            let sessions = try await c.call(.get, Routes.base + "/auth/sessions", token: ownerAccess).body.arrayValue ?? []
            let otherId = try #require(sessions.first { $0["current"] == false }?["id"]?.stringValue)
            #expect(try await c.call(.delete, Routes.base + "/auth/sessions/" + otherId, token: ownerAccess).status == 200)
            let otherRefresh = try #require(other["refresh_token"])
            found.withLock { $0.append(otherRefresh) }

            // Lockout after the free failures (5; the logins since cleared the one above); rate
            // limit on the third registration.
            for _ in 0..<6 { _ = try await c.emailLogin("au@example.com", "wrong-two") }
            #expect(try await c.emailLogin("au@example.com", "Pass-word-2").status == 429)
            #expect(try await c.userpass("register", ["email": "b1@example.com", "password": "Pass-word-1"]).status == 201)
            #expect(try await c.userpass("register", ["email": "b2@example.com", "password": "Pass-word-1"]).status == 429)
            #expect(try await c.call(.delete, Routes.deleteUser, token: ownerAccess).status < 300)
        }

        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let events = try await store.auditEvents(AuditFilter(limit: 1000)).reversed()
        func count(_ name: String, _ outcome: String? = nil) -> Int {
            events.filter { $0.event == name && (outcome == nil || $0.outcome == outcome) }.count
        }
        #expect(count("register") == 2)
        for name in [
            "confirm", "reset_requested", "reset_done", "api_key_created", "api_key_disabled", "api_key_enabled",
            "api_key_deleted", "session_revoked", "user_deleted", "plugin_killed", "rate_limited", "lockout",
        ] {
            #expect(count(name) == 1, "\(name): \(events.filter { $0.event == name })")
        }
        #expect(count("login", "success") == 3 && count("password_failed") == 7, "\(events.map(\.event))")
        let login = try #require(events.first { $0.event == "login" })
        #expect(login.provider == "local-userpass" && login.userId != nil && login.address == "127.0.0.1" && login.appId == "local")
        #expect(events.first { $0.event == "plugin_killed" }?.detail == "time limit: spin")
        #expect(events.first { $0.event == "password_failed" }?.detail == "InvalidPassword")

        // No secret in any field of any event.
        let everything = events.map { "\($0)" }.joined(separator: "\n")
        for secret in found.withLock({ $0 }) { #expect(!everything.contains(secret), "a secret in the audit log") }
    }

    /// What a client writes in a path is not recorded: a login to an app the server does not
    /// serve leaves no row, a provider the app lacks is not named; and failures nobody is
    /// logged in for are kept up to 120 a minute per address, so bad requests cannot fill the disk.
    /// (The budget counts by the server's clock; rows carry its seconds.)
    @Test func clientsCannotFillTheLog() async throws {
        let directory = Scratch.path("audit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(TestServer.configuration(database: .directory(directory)), mode: .live) { c async throws in
            let junk = String(repeating: "x", count: 4000)
            #expect(try await c.call(.post, Routes.base + "/app/\(junk)/auth/providers/anon-user/login", json: [:]).status == 404)
            #expect(try await c.call(.post, Routes.base + "/app/local/auth/providers/\(junk)/login", json: [:]).status >= 400)
            for _ in 0..<250 {
                #expect(try await c.call(.post, Routes.base + "/app/local/auth/providers/local-userpass/login", raw: Array("{".utf8)).status >= 400)
            }
        }
        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        let events = try await store.auditEvents(AuditFilter(limit: 1000))
        #expect(!events.contains { $0.appId.count > 100 || ($0.provider?.count ?? 0) > 100 }, "a path's junk was recorded")
        #expect(events.allSatisfy { $0.appId == "local" })
        // 120 a minute (the requests may straddle a minute), so some of the 251 were dropped.
        let perMinute = Dictionary(grouping: events, by: { $0.time / 60 }).mapValues(\.count)
        #expect(perMinute.values.allSatisfy { $0 <= 120 } && events.count < 251, "\(perMinute)")
    }
}
