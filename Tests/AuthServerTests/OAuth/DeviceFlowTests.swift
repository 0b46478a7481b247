// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// Device authorization (RFC 8628) through the server, against the dev identity provider's
/// device endpoints: pending, slow_down, approved, denied, expired.
@Suite(.timeLimit(.minutes(5))) struct DeviceFlowTests {
    static func device(_ c: Client, _ provider: String) async throws -> (deviceCode: String, userCode: String, reply: Reply) {
        let reply = try await c.call(.post, Routes.app(c.app) + "/auth/providers/\(provider)/device", json: [:])
        #expect(reply.status == 200, "\(reply.body)")
        return (try #require(reply["device_code"]), try #require(reply["user_code"]), reply)
    }

    static func poll(_ c: Client, _ provider: String, _ code: String) async throws -> Reply {
        try await c.login(provider, ["deviceCode": .string(code)])
    }

    static func approve(_ c: Client, _ userCode: String, email: String, deny: Bool = false) async throws {
        var body: EJSONDocument = ["userCode": .string(userCode), "identity": ["email": .string(email), "name": "Dee"]]
        if deny { body["decision"] = "deny" }
        let reply = try await c.call(.post, "/dev/idp/api/device/approve", json: .document(body))
        #expect(reply.status == 200, "\(reply.body)")
    }

    @Test(arguments: ["oauth2-github", "oauth2-google"])
    func pendingSlowDownThenApproved(provider: String) async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            let (code, userCode, reply) = try await Self.device(c, provider)
            #expect(reply["verification_uri"]?.hasSuffix("/dev/idp/device") == true)
            #expect(reply.body["interval"]?.integerValue == 5)
            let firstSent = ContinuousClock.now
            let pending = try await Self.poll(c, provider, code)
            #expect(pending.status == 400 && pending.code == "AuthorizationPending", "\(pending.body)")
            // At once again: faster than the interval (5 s), unless a loaded machine took that
            // long between the two polls (counted from before the first: the IdP compares whole
            // seconds since the first reached it).
            let slow = try await Self.poll(c, provider, code)
            if firstSent.duration(to: .now) < .seconds(4) {
                #expect(slow.status == 400 && slow.code == "SlowDown", "\(slow.body)")
            }
            try await Self.approve(c, userCode, email: "dee@example.com")
            let done = try await Self.poll(c, provider, code)
            #expect(done.status == 200 && done["refresh_token"] != nil, "\(done.body)")
            let profile = try await c.profile(try #require(done["access_token"]))
            #expect(profile.body["data"]?["email"] == "dee@example.com")
            // The device code is spent.
            #expect(try await Self.poll(c, provider, code).status != 200)
        }
    }

    @Test func deniedAndExpired() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            let denied = try await Self.device(c, "oauth2-github")
            try await Self.approve(c, denied.userCode, email: "no@example.com", deny: true)
            let d = try await Self.poll(c, "oauth2-github", denied.deviceCode)
            #expect(d.status == 400 && d.code == "AccessDenied", "\(d.body)")

            let late = try await Self.device(c, "oauth2-google")
            _ = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": 901])
            let e = try await Self.poll(c, "oauth2-google", late.deviceCode)
            #expect(e.status == 400 && e.code == "ExpiredToken", "\(e.body)")
            // An approval after expiry finds nothing to approve.
            let reply = try await c.call(
                .post, "/dev/idp/api/device/approve",
                json: ["userCode": .string(late.userCode), "identity": ["email": "x@example.com"]])
            #expect(reply.status == 400)
        }
    }

    @Test func aProviderWithoutADeviceEndpointSaysSo() async throws {
        var app = AppConfiguration(id: "local")
        var p = OAuthProviderConfiguration(type: "oauth2-plain", clientId: "c")
        p.authorizationEndpoint = "https://id.example/authorize"
        p.tokenEndpoint = "https://id.example/token"
        p.userinfoEndpoint = "https://id.example/userinfo"
        app.providers.oauth = [p.type: p]
        try await TestServer.run(TestServer.configuration(apps: [app])) { c in
            let reply = try await c.call(.post, Routes.app("local") + "/auth/providers/oauth2-plain/device", json: [:])
            #expect(reply.status == 404 && reply.message?.contains("no device authorization endpoint") == true, "\(reply.body)")
        }
    }
}
