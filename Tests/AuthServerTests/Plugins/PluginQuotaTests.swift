// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// What a plugin can run up through `context` is bounded per app (`pluginLimits`), with
/// errors that name the limit: mails per call and per address, keys in the store; and
/// `functions/call` itself is rate limited per address and per user.
@Suite(.timeLimit(.minutes(5))) struct PluginQuotaTests {
    static let plugin = """
        local m = {}
        function m.mail(to, n)
          for i = 1, n do context.email.send{ to = to, subject = "s" .. i, body = "b" } end
          return n
        end
        function m.fill(from, n)
          for i = from, from + n - 1 do context.store.set("k" .. i, i) end
          return n
        end
        function m.echo(x) return x end
        return m
        """

    @Test func mailsAndStoreKeysAreBoundedWithErrorsThatNameTheLimit() async throws {
        let dir = try PluginDirectory(["m.lua": Self.plugin])
        let config = TestServer.withPlugins(dir.path) { $0.pluginLimits.storeKeys = 50 }
        try await TestServer.run(config) { (c: Client) async throws in
            let token = try await c.anonymousToken()
            let flood = try await c.function("mail", ["victim@example.com", 100], token: token)
            #expect(flood.status == 400 && flood.message?.contains("pluginLimits.mailsPerCall") == true, "\(flood.body)")
            #expect(try await c.outbox("victim@example.com", kind: "plugin").count == 5)
            // Across calls, one address gets at most 10 an hour.
            var refused: Reply?
            for _ in 1...10 where refused == nil {
                let r = try await c.function("mail", ["victim2@example.com", 1], token: token)
                if r.status != 200 { refused = r }
            }
            #expect(refused == nil, "ten single mails are fine")
            let eleventh = try await c.function("mail", ["Victim2+again@Example.com.", 1], token: token)
            #expect(eleventh.status == 400 && eleventh.message?.contains("pluginLimits.mailsPerAddressPerHour") == true, "\(eleventh.body)")
            #expect(try await c.outbox("victim2@example.com", kind: "plugin").count == 10)

            #expect(try await c.function("fill", [1, 20], token: token).status == 200)
            #expect(try await c.function("fill", [21, 20], token: token).status == 200)
            let full = try await c.function("fill", [41, 20], token: token)
            #expect(full.status == 400 && full.message?.contains("pluginLimits.storeKeys") == true, "\(full.body)")
            // A key the store holds can still be written.
            #expect(try await c.function("fill", [1, 20], token: token).status == 200)
        }
    }

    @Test func functionsCallIsRateLimitedPerUserAndAddress() async throws {
        let dir = try PluginDirectory(["m.lua": Self.plugin])
        let config = TestServer.withPlugins(dir.path) {
            $0.rateLimits.enabled = true
            // A day's window: what refills while a busy machine runs the test is a fraction of a call.
            $0.rateLimits.limits[.call] = .init(perAddress: 8, perAccount: 5, windowSeconds: 86_400)
        }
        try await TestServer.run(config) { (c: Client) async throws in
            let first = try await c.anonymousToken(), second = try await c.anonymousToken()
            for _ in 1...5 { #expect(try await c.function("echo", [1], token: first).status == 200) }
            let over = try await c.function("echo", [1], token: first)
            #expect(over.status == 429 && over.retryAfter != nil, "\(over.body)")
            // Another user from the same address, until the address's own limit.
            for _ in 1...2 { #expect(try await c.function("echo", [1], token: second).status == 200) }
            #expect(try await c.function("echo", [1], token: second).status == 429)
        }
    }
}
