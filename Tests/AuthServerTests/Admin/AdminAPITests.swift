// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import HTTPTypes
import Synchronization
import Testing

/// The admin API through HTTP: keys, every operation, and what each does to the user's logins.
@Suite(.timeLimit(.minutes(5))) struct AdminAPITests {
    @Test func adminActsAreRecordedEvenWithTheAuditLogOff() async throws {
        let directory = Scratch.path("admin")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = try AdminHarness.configuration(directory: directory)
        config.auditLog = false
        try await TestServer.run(config) { c in
            let id = try AdminHarness.userId(try await c.anonymous())
            #expect(try await AdminHarness.admin(c, .post, "/users/\(id)/disable").status == 200)
            #expect(try await AdminHarness.admin(c, .get, "/users", key: "ops-key-0123456789abcdef0123456789abcdeX").status == 401)
            let events = try #require(try await AdminHarness.admin(c, .get, "/users/\(id)").body["audit"]?.arrayValue)
            // The admin's change is there, with its actor; the user's own login is not (auditLog: false).
            #expect(events.map { $0["event"]?.stringValue } == ["user_disabled"])
            #expect(events.first?["actor"] == "admin:ops")
        }
        let store = try SQLiteStore(path: directory + "/authsh.sqlite")
        // A refused key is anyone's doing, like a failed login: off with the auth events.
        let refusals = try await store.auditEvents(AuditFilter(appId: "local", event: "admin_refused"))
        #expect(refusals.isEmpty)
    }

    @Test func aKeyThatCouldBeReadOnTheWayIsRefusedUnread() async throws {
        for overHTTP in [false, true] {
            let directory = Scratch.path("admin")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var config = try AdminHarness.configuration(directory: directory)
            // The tests' loopback connection plays a TLS proxy when it sends proxy headers.
            config.trustedProxies = try TrustedProxies(["127.0.0.1"])
            config.adminOverHTTP = overHTTP
            try await TestServer.run(config, mode: .live) { c in
                let port = try #require(c.client.port)
                func status(host: String, _ extra: String = "", key: String = AdminHarness.key) async throws -> String {
                    let answer = try await RawHTTP.exchange(
                        port: port,
                        "GET \(AdminHarness.base)/users HTTP/1.1\r\nHost: \(host)\r\n\(extra)"
                            + "Authorization: Bearer \(key)\r\nConnection: close\r\n\r\n")
                    return String(answer.prefix(12)) + (answer.contains("adminOverHTTP") ? " (says how)" : "")
                }
                let refused = overHTTP ? "HTTP/1.1 200" : "HTTP/1.1 403 (says how)"
                // Over https (the proxy says so), or from this machine: the key is read.
                #expect(try await status(host: "auth.example.com", "X-Forwarded-For: 203.0.113.9\r\nX-Forwarded-Proto: https\r\n") == "HTTP/1.1 200")
                #expect(try await status(host: "127.0.0.1:\(port)") == "HTTP/1.1 200")
                // Plain http through the proxy, or straight to the server by another name: refused
                // before the key is looked at (a wrong key gets the same answer).
                #expect(try await status(host: "auth.example.com", "X-Forwarded-For: 203.0.113.9\r\nX-Forwarded-Proto: http\r\n") == refused)
                #expect(try await status(host: "192.0.2.2:\(port)") == refused)
                if !overHTTP { #expect(try await status(host: "192.0.2.2:\(port)", key: "wrong") == refused) }
            }
        }
    }

    @Test func offWithoutAdminKeys() async throws {
        try await TestServer.run(TestServer.configuration()) { c in
            let r = try await c.call(.get, AdminHarness.base + "/users", headers: [("Authorization", "Bearer " + AdminHarness.key)])
            #expect(r.status == 404)
        }
    }

    @Test func onlyAnAdminKeyGetsIn() async throws {
        try await AdminHarness.withServer { c, database in
            let missing = try await AdminHarness.admin(c, .get, "/users", key: nil)
            #expect(missing.status == 401 && missing.code == "MissingAuthReq")
            let wrong = try await AdminHarness.admin(c, .get, "/users", key: String(AdminHarness.key.dropLast()) + "0")
            #expect(wrong.status == 401 && wrong.code == "InvalidAdminKey")
            #expect(try await AdminHarness.admin(c, .get, "/users", key: "").status == 401)
            // A user's tokens are not admin keys.
            let login = try await c.anonymous()
            #expect(try await AdminHarness.admin(c, .get, "/users", key: login["access_token"]).status == 401)
            #expect(try await AdminHarness.admin(c, .get, "/users", key: login["refresh_token"]).status == 401)
            // Both configured keys work.
            #expect(try await AdminHarness.admin(c, .get, "/users").status == 200)
            #expect(try await AdminHarness.admin(c, .get, "/users", key: "ci-key-abcdefabcdefabcdefabcdefabcdef").status == 200)
            // Each refusal is in the audit log, with its code and never the key tried; a path
            // naming an app the server does not have is not recorded.
            #expect(try await c.call(.get, "/api/admin/v1/apps/nowhere/users", headers: [("Authorization", "Bearer x")]).status == 401)
            let store = try SQLiteStore(path: database)
            let refused = try await store.auditEvents(AuditFilter(event: "admin_refused"))
            #expect(refused.count == 5 && refused.allSatisfy { $0.appId == "local" && $0.outcome == "failure" }, "\(refused)")
            #expect(Set(refused.compactMap(\.detail)) == ["MissingAuthReq", "InvalidAdminKey"])
            let all = try await store.auditEvents(AuditFilter(limit: 1000))
            #expect(!all.contains { "\($0)".contains(String(AdminHarness.key.dropLast())) })
        }
    }

    @Test func shortOrRepeatedKeysAreRefused() throws {
        #expect(throws: ConfigError.self) { try AdminKeys([(name: "ops", key: "short")]) }
        #expect(throws: ConfigError.self) { try AdminKeys([(name: "a", key: AdminHarness.key), (name: "b", key: AdminHarness.key)]) }
        #expect(throws: ConfigError.self) { try AdminKeys([(name: "a", key: AdminHarness.key), (name: "a", key: AdminHarness.key + "x")]) }
        #expect(throws: ConfigError.self) { try AdminKeys([(name: "no spaces", key: AdminHarness.key)]) }
        var config = ServerConfiguration()
        #expect(throws: ConfigError.self) {
            try config.loadConfig(Array(#"{"adminKeys": [{"name": "ops", "key": "x", "extra": 1}], "apps": [{"id": "a"}]}"#.utf8), file: "c.json")
        }
        try config.loadConfig(Array(#"{"adminKeys": [{"name": "ops", "key": "\#(AdminHarness.key)"}], "apps": [{"id": "a"}]}"#.utf8), file: "c.json")
        #expect(config.adminKeys.name(of: AdminHarness.key) == "ops" && config.adminKeys.name(of: AdminHarness.key + "x") == nil)
    }

    @Test func disableEnableRevokeDeleteAndWhatTheyDoToLogins() async throws {
        try await AdminHarness.withServer(plugins: ["echo.lua": "return function(x) return x end"]) { c, database in
            try await c.registerConfirmed("ada@example.com", "Pass-word-1")
            let login = try await c.emailLogin("ada@example.com", "Pass-word-1")
            let id = try AdminHarness.userId(login)
            let access = try #require(login["access_token"]), refresh = try #require(login["refresh_token"])

            let shown = try await AdminHarness.admin(c, .get, "/users/\(id)")
            #expect(shown.status == 200)
            #expect(shown.body["disabled"] == false && shown.body["lastLoginAt"]?.integerValue != nil)
            #expect(shown.body["identities"]?.arrayValue?.first?["providerType"] == "local-userpass")
            #expect(shown.body["sessions"]?.arrayValue?.count == 1)
            #expect(!String(decoding: shown.body.encoded(), as: UTF8.self).contains(refresh), "no token in the answer")

            // Disabled: no login, no refresh, no call with the access token it had.
            let disabled = try await AdminHarness.admin(c, .post, "/users/\(id)/disable")
            #expect(disabled.status == 200 && disabled.body["disabled"] == true)
            let refused = try await c.emailLogin("ada@example.com", "Pass-word-1")
            #expect(refused.status == 401 && refused.code == "UserDisabled")
            #expect(try await c.refresh(refresh).status == 401)
            #expect(try await c.function("echo", [1], token: access).status == 401)
            let listedDisabled = try await AdminHarness.admin(c, .get, "/users?state=disabled")
            #expect(listedDisabled.body["users"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])

            // Enabled: the same tokens work again.
            #expect(try await AdminHarness.admin(c, .post, "/users/\(id)/enable").status == 200)
            #expect(try await c.function("echo", [1], token: access).status == 200)
            #expect(try await c.emailLogin("ada@example.com", "Pass-word-1").status == 200)

            // Revoked: every session ends.
            let revoked = try await AdminHarness.admin(c, .delete, "/users/\(id)/sessions")
            #expect(revoked.status == 200 && revoked.body["revoked"]?.integerValue == 2)
            #expect(try await c.refresh(refresh).status == 401)

            // Custom data, shown and in the next access token.
            let set = try await AdminHarness.admin(c, .put, "/users/\(id)/custom_data", json: ["plan": "pro"])
            #expect(set.status == 200 && set.body["customData"]?["plan"] == "pro")
            #expect(try await AdminHarness.admin(c, .put, "/users/\(id)/custom_data", json: ["not", "an", "object"]).status == 400)
            let again = try await c.emailLogin("ada@example.com", "Pass-word-1")
            let profile = try await c.profile(try #require(again["access_token"]))
            #expect(profile.status == 200)

            // A reset mail, as the user would get one.
            #expect(try await AdminHarness.admin(c, .post, "/users/\(id)/reset").status == 200)
            #expect(try await c.outbox("ada@example.com", kind: "reset").count == 1)

            // Deleted: gone, and its password logs in no more.
            #expect(try await AdminHarness.admin(c, .delete, "/users/\(id)").status == 200)
            #expect(try await AdminHarness.admin(c, .get, "/users/\(id)").status == 404)
            #expect(try await c.emailLogin("ada@example.com", "Pass-word-1").status == 401)

            // Each action is in the audit log with the key's name.
            let store = try SQLiteStore(path: database)
            let events = try await store.auditEvents(AuditFilter(userId: id, limit: 100)).filter { $0.actor != nil }
            #expect(
                Set(events.map(\.event)) == [
                    "user_disabled", "user_enabled", "session_revoked", "custom_data_set",
                    "reset_requested", "user_deleted",
                ], "\(events.map(\.event))")
            #expect(events.allSatisfy { $0.actor == "admin:ops" && $0.userId == id })
        }
    }

    @Test func confirmAPendingUser() async throws {
        try await AdminHarness.withServer { c, _ in
            #expect(try await c.userpass("register", ["email": "pending@example.com", "password": "Pass-word-1"]).status == 201)
            #expect(try await c.emailLogin("pending@example.com", "Pass-word-1").status == 401)
            let confirmed = try await AdminHarness.admin(c, .post, "/confirm", json: ["email": "pending@example.com"])
            #expect(confirmed.status == 200 && confirmed.body["confirmed"] == true)
            #expect(try await c.emailLogin("pending@example.com", "Pass-word-1").status == 200)
            #expect(try await AdminHarness.admin(c, .post, "/confirm", json: ["email": "nobody@example.com"]).status == 404)
            #expect(try await AdminHarness.admin(c, .post, "/confirm", json: ["mail": "x"]).status == 400)
        }
    }

    @Test func listingFiltersAndBadParameters() async throws {
        try await AdminHarness.withServer { c, _ in
            try await c.registerConfirmed("ann@example.com")
            try await c.registerConfirmed("bob@example.com")
            let ann = try AdminHarness.userId(try await c.emailLogin("ann@example.com", "password1"))
            let bob = try AdminHarness.userId(try await c.emailLogin("bob@example.com", "password1"))
            let anon = try AdminHarness.userId(try await c.anonymous())
            func ids(_ query: String) async throws -> [String] {
                let r = try await AdminHarness.admin(c, .get, "/users" + query)
                #expect(r.status == 200, "\(query): \(r.body)")
                return r.body["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            }
            #expect(try await ids("") == [ann, bob, anon].sorted())
            #expect(try await ids("?email=ann") == [ann])
            #expect(try await ids("?id=\(bob)") == [bob])
            #expect(try await ids("?id=\(bob)&provider=anon-user") == [])
            #expect(try await ids("?email=ANN%40EXAMPLE.COM") == [ann])
            #expect(try await ids("?email=%25") == [], "LIKE's wildcard matches itself only")
            #expect(try await ids("?provider=anon-user") == [anon])
            #expect(try await ids("?provider=local-userpass") == [ann, bob].sorted())
            #expect(try await ids("?state=enabled").count == 3)
            #expect(try await ids("?createdAfter=4102444800") == [], "created after 2100")
            #expect(try await ids("?lastLoginBefore=1").isEmpty)
            #expect(try await ids("?lastLoginAfter=1").count == 3)

            for (query, name) in [
                ("?limit=0", "limit"), ("?limit=x", "limit"), ("?state=gone", "state"), ("?createdAfter=yesterday", "createdAfter"),
                ("?cursor=zz", "cursor"), ("?sort=id", "sort"), ("?email=a&email=b", "email"),
            ] {
                let r = try await AdminHarness.admin(c, .get, "/users" + query)
                #expect(r.status == 400 && r.message?.contains(name) == true, "\(query): \(r.body)")
            }
            #expect(try await AdminHarness.admin(c, .get, "/users/000000000000000000000000").status == 404)
            #expect(try await c.call(.get, "/api/admin/v1/apps/nope/users", headers: [("Authorization", "Bearer " + AdminHarness.key)]).status == 404)
        }
    }

    /// Paging through while others register: every user who was there before is seen once,
    /// none twice.
    @Test func pagesAreStableUnderConcurrentRegistrations() async throws {
        try await AdminHarness.withServer { c, _ in
            var before: Set<String> = []
            for _ in 0..<40 { before.insert(try AdminHarness.userId(try await c.anonymous())) }
            let registering = Task {
                for _ in 0..<40 { _ = try await c.anonymous() }
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let r = try await AdminHarness.admin(c, .get, "/users?limit=7" + (cursor.map { "&cursor=" + $0 } ?? ""))
                #expect(r.status == 200)
                seen += r.body["users"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                cursor = r.body["next"]?.stringValue
            } while cursor != nil
            try await registering.value
            #expect(seen.count == Set(seen).count, "a user seen twice")
            #expect(before.isSubset(of: Set(seen)), "a user who was there before was missed")
        }
    }
}
