// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// The `migrateUser` hook (issue 50's lazy migration) through HTTP on a real server: a password
/// login of an email no account has asks the app's Lua; a user it brings in is made with that
/// password (Argon2id), its profile and custom data, and logs in from then on without the
/// hook; anything else is refused as an unknown email is. The same through Firebase's API. The
/// password reaches no log.
@Suite(.timeLimit(.minutes(5))) struct MigrateUserHookTests {
    static let plugin = """
        local m = {}
        -- The old system: two users and their passwords.
        local legacy = { ["lin@legacy.example"] = "legacy-pass", ["fb@legacy.example"] = "legacy-pass" }
        function m.migrate(event)
          if event.email == "down@legacy.example" then error("the old system is down") end
          if context.store.get(event.email) then error("asked again for " .. event.email) end
          if legacy[event.email] ~= event.password then return nil end
          context.store.set(event.email, true)
          return { data = { name = "Lin from Legacy" }, custom_data = { from = "legacy", api = event.api }, emailVerified = true }
        end
        return m
        """

    @Test func aLoginOfAnUnknownEmailAsksTheHookOnce() async throws {
        try await AdminHarness.withServer(plugins: ["legacy.lua": Self.plugin]) { c, database in
            try await AuthHookTests.setHooks(c, ["migrateUser": "migrate"])
            let wrong = try await c.emailLogin("lin@legacy.example", "not-the-password")
            #expect(wrong.status == 401 && wrong.code == "InvalidPassword", "\(wrong.body)")
            #expect(try await AuthHookTests.users(c).isEmpty, "a refused migration writes nothing")

            let first = try await c.emailLogin("lin@legacy.example", "legacy-pass")
            #expect(first.status == 200, "\(first.body)")
            let profile = try await c.profile(try #require(first["access_token"]))
            #expect(profile.body["data"]?["name"] == "Lin from Legacy" && profile.body["data"]?["email"] == "lin@legacy.example")
            let claims = try FirebaseAPITests.parts(first["access_token"]).claims
            #expect(claims["user_data"]?["from"] == "legacy" && claims["user_data"]?["api"] == "app-services", "\(claims)")

            // From now on the account is authsh's: the hook is not asked again (it would refuse).
            let second = try await c.emailLogin("lin@legacy.example", "legacy-pass")
            #expect(second.status == 200 && second["user_id"] == first["user_id"])
            #expect(try await c.emailLogin("lin@legacy.example", "not-the-password").status == 401)
            let store = try SQLiteStore(path: database)
            let account = try #require(try await store.userpassAccount(app: "local", email: "lin@legacy.example"))
            #expect(account.passwordHash.hasPrefix("$argon2id$") && account.confirmed && account.emailVerified)

            // An unknown email the old system does not know either, and a hook that fails.
            #expect(try await c.emailLogin("nobody@legacy.example", "legacy-pass").status == 401)
            let down = try await c.emailLogin("down@legacy.example", "legacy-pass")
            #expect(down.status == 403 && down.code == "HookRefused" && down.message == "the old system is down", "\(down.body)")

            // Through Firebase's API too.
            let firebase = try await FirebaseAPITests.call(
                c, "signInWithPassword", ["email": "fb@legacy.example", "password": "legacy-pass", "returnSecureToken": true])
            #expect(firebase.status == 200 && firebase["idToken"] != nil, "\(firebase.body)")

            let migrated = try await store.auditEvents(AuditFilter(event: "user_migrated"))
            #expect(migrated.count == 2, "\(migrated)")
            // The password is in no audit entry.
            let all = try await store.auditEvents(AuditFilter())
            #expect(!all.contains { "\($0)".contains("legacy-pass") })
        }
    }
}
