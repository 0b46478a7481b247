// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthStorage
import Foundation
import TestSupport
import Testing

@testable import AuthServer

/// The `migrateIdentity` hook (issue 50's lazy migration for logins without a password) through
/// HTTP on a real server: a custom-function login of an identity no user has asks the app's
/// Lua, which names the old system's user: made with that id, profile and custom data, or, when
/// a user has that id already (imported without this identity), joined. Asked once per
/// identity; never for a password login; a hook that fails refuses and writes nothing.
@Suite(.timeLimit(.minutes(5))) struct MigrateIdentityHookTests {
    static let plugins = [
        "login.lua": "return function(payload) return { id = 'sub:' .. payload.username } end",
        "legacy.lua": """
        local m = {}
        -- The old system: the user each identity was.
        local known = { ["sub:ada"] = { id = "legacy-ada", name = "Ada" }, ["sub:lin"] = { id = "imported-lin" } }
        function m.migrate(event)
          if event.provider ~= "custom-function" then error("asked about a " .. event.provider .. " login") end
          if event.identity.id == "sub:down" then error("the old system is down") end
          if context.store.get(event.identity.id) then error("asked again about " .. event.identity.id) end
          context.store.set(event.identity.id, true)
          local found = known[event.identity.id]
          if not found then return nil end
          return { id = found.id, data = { name = found.name }, custom_data = { from = "legacy", api = event.api } }
        end
        return m
        """,
    ]

    @Test func anUnknownIdentityComesInAsTheOldSystemsUser() async throws {
        try await AdminHarness.withServer(plugins: Self.plugins) { c, _ in
            // A user imported from the old system with a password but without this identity.
            let line = AdminTransferTests.bcryptLine.replacingOccurrences(of: "5f0000000000000000000001", with: "imported-lin")
            #expect(try await AdminTransferTests.importing(c, line).status == 200)
            try await AuthHookTests.setHooks(c, ["migrateIdentity": "migrate"])

            // Made with the old system's id, profile and custom data.
            let ada = try await c.login("custom-function", ["username": "ada"])
            #expect(ada.status == 200 && ada["user_id"] == "legacy-ada", "\(ada.body)")
            let profile = try await c.profile(try #require(ada["access_token"]))
            #expect(profile.body["data"]?["name"] == "Ada")
            let claims = try FirebaseAPITests.parts(ada["access_token"]).claims
            #expect(claims["user_data"]?["from"] == "legacy" && claims["user_data"]?["api"] == "app-services", "\(claims)")
            // Known from now on: the hook is not asked again (it would refuse).
            #expect(try await c.login("custom-function", ["username": "ada"])["user_id"] == "legacy-ada")

            // Joined: the imported user gets the identity, keeps its password and custom data.
            let lin = try await c.login("custom-function", ["username": "lin"])
            #expect(lin.status == 200 && lin["user_id"] == "imported-lin", "\(lin.body)")
            let linProfile = try await c.profile(try #require(lin["access_token"]))
            let types = linProfile.body["identities"]?.arrayValue?.compactMap { $0["provider_type"]?.stringValue } ?? []
            #expect(Set(types) == ["local-userpass", "custom-function"], "\(linProfile.body)")
            #expect(try await c.emailLogin("old@example.com", "correct horse")["user_id"] == "imported-lin")
            #expect(try await c.login("custom-function", ["username": "lin"])["user_id"] == "imported-lin")

            // Unknown there too: a new user, as without the hook.
            let newcomer = try await c.login("custom-function", ["username": "newcomer"])
            #expect(newcomer.status == 200 && newcomer["user_id"]?.count == 24, "\(newcomer.body)")

            // A hook that fails refuses, and writes nothing.
            let before = try await AuthHookTests.users(c).count
            let down = try await c.login("custom-function", ["username": "down"])
            #expect(down.status == 403 && down.code == "HookRefused" && down.message == "the old system is down", "\(down.body)")
            #expect(try await AuthHookTests.users(c).count == before)

            // A password login never asks it (the hook refuses any other provider).
            try await c.registerConfirmed("kim@example.com")
            #expect(try await c.emailLogin("kim@example.com", "password1").status == 200)
        }
    }

    @Test func aHookThatReturnsABadIdRefuses() async throws {
        let plugins = [
            "login.lua": "return function(payload) return { id = 'sub:' .. payload.username } end",
            "legacy.lua": "local m = {}\nfunction m.migrate(event) return { id = 'bad\\1id' } end\nreturn m",
        ]
        try await AdminHarness.withServer(plugins: plugins) { c, _ in
            try await AuthHookTests.setHooks(c, ["migrateIdentity": "migrate"])
            let refused = try await c.login("custom-function", ["username": "ada"])
            #expect(refused.status == 403 && refused.code == "HookRefused", "\(refused.body)")
            #expect(refused.message?.contains("its id must be 1 to 128 bytes without control characters") == true, "\(refused.body)")
            #expect(try await AuthHookTests.users(c).isEmpty)
        }
    }
}
