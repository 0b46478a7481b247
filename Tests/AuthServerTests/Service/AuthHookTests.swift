// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import TestSupport
import Testing

/// The app's hooks through HTTP on a real server: `beforeUserCreated` and `beforeLogin` refuse
/// and annotate before anything is written, `accessTokenClaims` reaches the access token and
/// survives a refresh, and a hook that fails refuses (fail closed), audited.
@Suite(.timeLimit(.minutes(5))) struct AuthHookTests {
    static let hooks = """
        local m = {}
        function m.gate(event)
          if event.provider == "anon-user" then error("no anonymous sign-ups") end
          local email = event.identity.provider_data.email or ""
          if not email:match("@example%.com$") then error("only example.com accounts may sign up") end
          return { data = { plan = "free" }, custom_data = { role = "member", via = event.provider, from = event.address, api = event.api } }
        end
        function m.notBanned(event)
          local n = (context.store.get("logins") or 0) + 1
          context.store.set("logins", n)
          context.store.set("last", { user = event.user.id, new = event.new_user, provider = event.provider })
          if event.user.custom_data and event.user.custom_data.banned then error("this account is banned") end
        end
        function m.claims(event)
          local custom = event.user.custom_data or {}
          return {
            roles = custom.roles or { "reader" }, tenant = "acme", identities = event.user.identities ~= nil, id = event.user.id,
            api = event.api,
          }
        end
        function m.reserved() return { sub = "someone-else" } end
        function m.huge() return { blob = string.rep("x", 5000) } end
        function m.spin() while true do end end
        function m.number() return 42 end
        function m.stats() return { logins = context.store.get("logins"), last = context.store.get("last") } end
        return m
        """

    /// A server with the hook plugin (``AdminHarness/withServer(plugins:configure:_:)``), HS256
    /// or `signing`, and plugin calls limited to 300 ms.
    static func withServer(
        signing: String = "HS256", _ body: @escaping @Sendable (Client, String) async throws -> Void
    ) async throws {
        try await AdminHarness.withServer(
            plugins: ["hooks.lua": hooks],
            configure: {
                $0.apps[0].tokenSigningAlgorithm = signing
                $0.pluginTimeLimit = .milliseconds(300)
            }, body)
    }

    /// Sets the app's `hooks` through the dev API.
    static func setHooks(_ c: Client, _ hooks: EJSON, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reply = try await c.call(.patch, "\(Routes.dev)/apps/local/config", json: ["hooks": hooks])
        #expect(reply.status == 200, "\(reply.body)", sourceLocation: sourceLocation)
    }

    static func users(_ c: Client) async throws -> [EJSON] {
        try #require(try await AdminHarness.admin(c, .get, "/users").body["users"]?.arrayValue)
    }

    @Test func beforeUserCreatedRefusesBeforeAnythingIsWrittenAndAnnotatesTheNewUser() async throws {
        try await Self.withServer { c, _ in
            try await c.registerConfirmed("eve@elsewhere.org")
            try await c.registerConfirmed("ann@example.com")
            try await Self.setHooks(c, ["beforeUserCreated": "gate"])

            let anonymous = try await c.anonymous()
            #expect(anonymous.status == 403 && anonymous.code == "HookRefused", "\(anonymous.body)")
            #expect(anonymous.message == "no anonymous sign-ups")
            let eve = try await c.emailLogin("eve@elsewhere.org", "password1")
            #expect(eve.status == 403 && eve.code == "HookRefused" && eve.message == "only example.com accounts may sign up")
            #expect(try await Self.users(c).isEmpty, "a refused sign-up leaves no user behind")

            let ann = try await c.emailLogin("ann@example.com", "password1")
            #expect(ann.status == 200, "\(ann.body)")
            let profile = try await c.profile(try #require(ann["access_token"]))
            #expect(profile.body["data"]?["plan"] == "free")
            #expect(profile.body["data"]?["email"] == "ann@example.com", "the hook's fields join the provider's")
            #expect(try SessionTests.claims(try #require(ann["access_token"]))["user_data"]?["api"] == "app-services", "the API it came through")
            let claims = try SessionTests.claims(try #require(ann["access_token"]))
            #expect(claims["user_data"]?["role"] == "member")
            #expect(claims["user_data"]?["via"] == "local-userpass")
            #expect(claims["user_data"]?["from"]?.stringValue?.isEmpty == false, "the hook sees the client's address")
            // A returning user is not created again: the hook does not run (anonymous would be refused).
            let again = try await c.emailLogin("ann@example.com", "password1")
            #expect(again.status == 200 && again["user_id"] == ann["user_id"])
            #expect(try await Self.users(c).count == 1)
        }
    }

    @Test func beforeLoginSeesEveryLoginAndRefusesOne() async throws {
        try await Self.withServer { c, _ in
            // `notBanned` counts the logins it sees in the plugin store; `stats` puts the count
            // in the access token.
            try await Self.setHooks(c, ["beforeLogin": "notBanned", "accessTokenClaims": "stats"])
            try await c.registerConfirmed("bob@example.com")
            let first = try await c.emailLogin("bob@example.com", "password1")
            #expect(first.status == 200, "\(first.body)")
            let id = try #require(first["user_id"])
            var seen = try SessionTests.claims(try #require(first["access_token"]))
            #expect(seen["logins"]?.integerValue == 1, "\(seen)")
            #expect(seen["last"]?["new"] == true && seen["last"]?["user"]?.stringValue == id, "the user-to-be has its id: \(seen)")
            #expect(seen["last"]?["provider"] == "local-userpass")
            let call = try await c.function("notBanned", token: try #require(first["access_token"]))
            #expect(call.status == 404 && call.code == "FunctionNotFound", "a hook is not a callable function: \(call.body)")

            let banned = try await AdminHarness.admin(c, .put, "/users/\(id)/custom_data", json: ["banned": true])
            #expect(banned.status == 200)
            let refused = try await c.emailLogin("bob@example.com", "password1")
            #expect(refused.status == 403 && refused.code == "HookRefused" && refused.message == "this account is banned")

            let refreshed = try await c.refresh(try #require(first["refresh_token"]))
            #expect(refreshed.status == 201)
            seen = try SessionTests.claims(try #require(refreshed["access_token"]))
            #expect(seen["logins"]?.integerValue == 2, "the refused login was seen, the refresh is no login: \(seen)")
            #expect(seen["last"]?["new"] == false)

            try await Self.setHooks(c, ["beforeLogin": .null, "accessTokenClaims": .null])
            let config = try await c.call(.get, "\(Routes.dev)/apps/local/config")
            #expect(config.body["hooks"] == .document([:]), "null removes a hook")
            #expect((try await c.emailLogin("bob@example.com", "password1")).status == 200)
        }
    }

    @Test(arguments: ["HS256", "ES256"]) func claimsReachTheAccessTokenAndSurviveARefresh(signing: String) async throws {
        try await Self.withServer(signing: signing) { c, _ in
            try await Self.setHooks(c, ["accessTokenClaims": "claims"])
            try await c.registerConfirmed("cy@example.com")
            let login = try await c.emailLogin("cy@example.com", "password1")
            #expect(login.status == 200, "\(login.body)")
            let access = try #require(login["access_token"])
            var claims = try SessionTests.claims(access)
            #expect(claims["roles"] == ["reader"] && claims["tenant"] == "acme" && claims["id"]?.stringValue == login["user_id"])
            #expect(claims["identities"] == false, "the claims hook sees no identities, at login as at refresh")
            #expect(claims["sub"]?.stringValue == login["user_id"], "the token's own claims stay")
            #expect((try await c.profile(access)).status == 200, "the token with extra claims verifies")

            let id = try #require(login["user_id"])
            _ = try await AdminHarness.admin(c, .put, "/users/\(id)/custom_data", json: ["roles": ["admin", "billing"]])
            let refreshed = try await c.refresh(try #require(login["refresh_token"]))
            #expect(refreshed.status == 201)
            claims = try SessionTests.claims(try #require(refreshed["access_token"]))
            #expect(claims["roles"] == ["admin", "billing"], "a refresh asks the hook again: \(claims)")
            #expect(claims["identities"] == false && claims["id"]?.stringValue == login["user_id"])
            #expect((try await c.profile(try #require(refreshed["access_token"]))).status == 200)
        }
    }

    @Test func reservedOversizeAndFailingHooksRefuseAndAreAudited() async throws {
        try await Self.withServer { c, database in
            let cases: [(EJSON, String)] = [
                (["accessTokenClaims": "reserved"], "refused: the accessTokenClaims hook failed: claim 'sub' is reserved"),
                (["accessTokenClaims": "huge"], "over the limit of 4096"),
                (["beforeLogin": "spin"], "execution time limit exceeded"),
                (["beforeUserCreated": "number"], "it must return nil or a table, not number"),
            ]
            for (hooks, message) in cases {
                try await Self.setHooks(c, ["accessTokenClaims": .null, "beforeLogin": .null, "beforeUserCreated": .null])
                try await Self.setHooks(c, hooks)
                let login = try await c.anonymous()
                #expect(login.status == 403 && login.code == "HookRefused", "\(hooks): \(login.body)")
                #expect(login.message?.contains(message) == true, "\(hooks): \(login.message ?? "")")
            }
            #expect(try await Self.users(c).isEmpty, "no refused login wrote a user")
            let store = try SQLiteStore(path: database)
            let failed = try await store.auditEvents(AuditFilter(event: "hook_failed"))
            #expect(failed.count == 4, "\(failed)")
            #expect(failed.allSatisfy { $0.outcome == "failure" })
            let refused = try await store.auditEvents(AuditFilter(event: "login"))
            #expect(refused.count == 4 && refused.allSatisfy { $0.outcome == "failure" && $0.detail?.contains("HookRefused") == true }, "\(refused)")
        }
    }

    @Test func aHookMustNameAPluginFunction() async throws {
        try await Self.withServer { c, _ in
            let reply = try await c.call(.patch, "\(Routes.dev)/apps/local/config", json: ["hooks": ["beforeLogin": "nowhere"]])
            #expect(reply.status == 400 && reply.message?.contains("hooks.beforeLogin") == true, "\(reply.body)")
            let unknown = try await c.call(.patch, "\(Routes.dev)/apps/local/config", json: ["hooks": ["afterLogin": "gate"]])
            #expect(unknown.status == 400 && unknown.message?.contains("afterLogin") == true, "\(unknown.body)")
        }
        #expect(throws: ConfigError.self) {
            try AppConfiguration(ejson: ["id": "a", "hooks": ["beforeLogin": ""]], path: "apps[0]")
        }
    }
}
