// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Testing

/// A provider is on only when the config turns it on: an app whose `providers` lists only
/// `anon-user` has no email/password and no API keys, on any of their routes; an app with no
/// `providers` key keeps the zero-config three.
@Suite(.timeLimit(.minutes(5))) struct ProviderDefaultsTests {
    static func config(_ json: String) throws -> ServerConfiguration {
        var c = TestServer.configuration(dev: false)
        try c.loadConfig(Array(json.utf8), file: "c.json")
        return c
    }

    @Test func aProviderTheConfigDoesNotListIsOffOnEveryRoute() async throws {
        let config = try Self.config(#"{"apps": [{"id": "local", "providers": {"anon-user": {}}}]}"#)
        try await TestServer.run(config) { (c: Client) async throws in
            let anonymous = try await c.anonymous()
            #expect(anonymous.status == 200)
            let token = try #require(anonymous["refresh_token"])
            let email: EJSON = ["email": "off@example.com", "password": "password1"]
            for (action, body) in [
                ("register", email), ("confirm/send", ["email": "off@example.com"]), ("reset/send", ["email": "off@example.com"]),
                ("reset/call", email), ("confirm", ["token": "t", "tokenId": "i"]),
            ] as [(String, EJSON)] {
                let r = try await c.userpass(action, body)
                #expect(r.status == 404 && r.code == "AuthProviderNotFound", "\(action): \(r.status) \(r.body)")
            }
            for (provider, body) in [
                ("local-userpass", ["username": "off@example.com", "password": "password1"]),
                ("api-key", ["key": "0123456789abcdef"]), ("custom-function", ["x": 1]),
                ("custom-token", ["token": "a.b.c"]),
            ] as [(String, EJSON)] {
                let r = try await c.login(provider, body)
                #expect(r.status == 404 && r.code == "AuthProviderNotFound", "\(provider): \(r.status) \(r.body)")
            }
            let key = try await c.call(.post, Routes.apiKeys, json: ["name": "k"], token: token)
            #expect(key.status == 404 && key.code == "AuthProviderNotFound", "\(key.body)")
        }
    }

    @Test func anAppWithoutProvidersKeepsTheZeroConfigOnes() async throws {
        let config = try Self.config(#"{"apps": [{"id": "local"}]}"#)
        try await TestServer.run(config) { (c: Client) async throws in
            #expect(try await c.anonymous().status == 200)
            #expect(try await c.userpass("register", ["email": "on@example.com", "password": "password1"]).status == 201)
            #expect(try await c.login("api-key", ["key": "0123456789abcdef"]).status == 401)
        }
        let off = try Self.config(#"{"apps": [{"id": "local", "providers": {"anon-user": {"enabled": false}, "local-userpass": {}}}]}"#)
        try await TestServer.run(off) { (c: Client) async throws in
            #expect(try await c.anonymous().status == 404)
            #expect(try await c.userpass("register", ["email": "on@example.com", "password": "password1"]).status == 201)
        }
    }
}

/// The `phone` provider's config: its test numbers and regions, checked at load; it is a
/// Firebase sign-in, which the App Services API does not take.
extension ProviderDefaultsTests {
    @Test func thePhoneProvidersConfigIsCheckedAndServesNoAppServicesLogin() async throws {
        let config = try Self.config(
            #"{"apps": [{"id": "local", "providers": {"phone": {"testNumbers": {"+15555550100": "123456"}, "allowedRegions": ["+1", "+44"]}}}]}"#)
        #expect(config.apps[0].providers.phone?.testNumbers == ["+15555550100": "123456"])
        #expect(config.apps[0].providers.phone?.allowedRegions == ["+1", "+44"])
        for (bad, names) in [
            (#"{"testNumbers": {"5555550100": "123456"}}"#, "E.164"), (#"{"testNumbers": {"+15555550100": "12345"}}"#, "6 digits"),
            (#"{"allowedRegions": ["1"]}"#, "prefix"), (#"{"allowedRegions": "+1"}"#, "allowedRegions"),
        ] {
            do {
                _ = try Self.config(#"{"apps": [{"id": "local", "providers": {"phone": "# + bad + #"}}]}"#)
                Issue.record("\(bad) was taken")
            } catch {
                #expect("\(error)".contains(names) && "\(error)".contains("providers.phone"), "\(error)")
            }
        }
        try await TestServer.run(config) { (c: Client) async throws in
            let r = try await c.login("phone", ["phoneNumber": "+15555550100", "code": "123456"])
            #expect(r.status == 404 && r.code == "AuthProviderNotFound", "\(r.status) \(r.body)")
        }
    }
}
