// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import Foundation
import AuthServer
import Hummingbird
import Testing

@Suite(.timeLimit(.minutes(5))) struct BadInputTests {
    @Test func malformedBodiesAreNamed400s() async throws {
        try await TestServer.run { c in
            let register = Routes.userpass("local", "register")
            let cases: [([UInt8], String)] = [
                (Array("{\"email\": ".utf8), "request body is not valid JSON"),
                (Array("[1,2]".utf8), "request body must be a JSON object, got array"),
                ([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d], "invalid UTF-8"),
                (Array("{\"email\": 5, \"password\": \"password1\"}".utf8), "parameter 'email' must be a string, got long"),
                (Array("{\"password\": \"password1\"}".utf8), "missing parameter 'email'"),
            ]
            for (body, message) in cases {
                let r = try await c.call(.post, register, raw: body)
                #expect(r.status == 400, "\(message)")
                #expect(r.message?.contains(message) == true, "\(r.message ?? "") should say \(message)")
            }
            let missing = try await c.call(.post, register, json: ["email": "a@example.com"])
            #expect(missing.code == "MissingParameter")
        }
    }

    @Test func oversizedBodyIs413() async throws {
        try await TestServer.run { c in
            let big = Array("{\"email\":\"".utf8) + [UInt8](repeating: 0x61, count: 1 << 20) + Array("\"}".utf8)
            let r = try await c.call(.post, Routes.userpass("local", "register"), raw: big)
            #expect(r.status == 413 && r.code == "PayloadTooLarge", "\(r.status) \(r.body)")
        }
    }

    @Test func unknownProviderAndUnknownApp() async throws {
        try await TestServer.run { c in
            let p = try await c.login("oauth2-nothing", ["provider": "oauth2-nothing"])
            #expect(p.status == 404 && p.code == "AuthProviderNotFound")
            let other = c.inApp("nope")
            #expect(try await other.anonymous().status == 404)
        }
    }

    @Test func badTokens() async throws {
        try await TestServer.run { c in
            let login = try await c.anonymous()
            let at = login["access_token"]!
            let parts = at.split(separator: ".").map(String.init)
            let none = Base64.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8), urlSafe: true)
            let forged = Base64.encode(
                Array(#"{"sub":"x","typ":"access","exp":9999999999,"iat":1,"iss":"s","baas_domain_id":"local"}"#.utf8), urlSafe: true)
            for token in [
                "garbage", "a.b.c", "\(none).\(parts[1]).", "\(none).\(forged).", "\(parts[0]).\(forged).\(parts[2])",
                "\(parts[0]).\(parts[1]).\(parts[2].dropLast(2))xx",
            ] {
                let r = try await c.profile(token)
                #expect(r.status == 401 && r.code == "InvalidSession", "token \(token)")
                #expect(r.message?.contains(token) == false)
            }
            #expect(try await c.call(.get, Routes.profile).code == "MissingAuthReq")
        }
    }

    @Test func tokenOfAnotherAppCannotLinkHere() async throws {
        let apps = [AppConfiguration(id: "local"), AppConfiguration(id: "other")]
        try await TestServer.run(TestServer.configuration(apps: apps)) { c in
            let other = c.inApp("other")
            let foreign = try await other.anonymous()
            try await c.registerConfirmed("app@example.com")
            let r = try await c.emailLogin("app@example.com", "password1", link: foreign["access_token"]!)
            #expect(r.status == 401 && r.code == "InvalidSession")
            // Each app has its own key: the profile route still knows the token's own app.
            #expect(try await c.profile(foreign["access_token"]!)["domain_id"] == "other")
            // Naming the other key in the header does not make the signature fit it.
            let parts = foreign["access_token"]!.split(separator: ".").map(String.init)
            let header = String(decoding: try #require(Base64.decode(parts[0])), as: UTF8.self)
            #expect(header.contains(#""kid":"other""#))
            let swapped = Base64.encode(Array(header.replacingOccurrences(of: #""kid":"other""#, with: #""kid":"local""#).utf8), urlSafe: true)
            let r2 = try await c.profile("\(swapped).\(parts[1]).\(parts[2])")
            #expect(r2.status == 401 && r2.code == "InvalidSession")
        }
    }

    @Test func devRoutesDoNotExistInProduction() async throws {
        try await TestServer.run(TestServer.configuration(dev: false)) { (c: Client) async throws in
            for (method, path) in [
                (HTTPRequest.Method.get, "\(Routes.dev)/clock"), (.delete, "\(Routes.dev)/apps/local/users"),
                (.get, "\(Routes.dev)/apps/local/outbox"),
            ] {
                #expect(try await c.call(method, path).status == 404)
            }
        }
    }
}

/// Three wire details an outside App Services client checks.
@Suite(.timeLimit(.minutes(5))) struct WireDetailTests {
    @Test func aProviderTheAppDoesNotEnableIsAuthProviderNotFound() async throws {
        var app = AppConfiguration(id: "local")
        app.providers.anonymous = false
        app.providers.userpass = nil
        app.providers.apiKey = false
        let bodies: [(String, EJSON)] = [
            ("anon-user", [:]), ("local-userpass", ["username": "a@example.com", "password": "password1"]),
            ("api-key", ["key": "0123456789abcdef"]), ("custom-function", ["name": "x"]), ("custom-token", ["token": "a.b.c"]),
            ("oauth2-github", ["accessToken": "x"]), ("oauth2-nosuch", ["id_token": "a.b.c"]),
        ]
        try await TestServer.run(TestServer.configuration(apps: [app], dev: false)) { c in
            for (provider, body) in bodies {
                let reply = try await c.login(provider, body)
                #expect(reply.status == 404 && reply.code == "AuthProviderNotFound", "\(provider): \(reply.body)")
            }
        }
    }

    @Test func aKnownDeviceIdComesBackAsStringOrObjectId() async throws {
        try await TestServer.run { c in
            let first = try await c.anonymous()
            let device = try #require(first["device_id"])
            for form in [EJSON.string(device), .objectId(try #require(ObjectId(hex: device)))] {
                let again = try await c.login("anon-user", ["provider": "anon-user", "options": ["device": ["deviceId": form]]])
                #expect(again["device_id"] == device, "\(form)")
            }
        }
    }

    @Test func apiKeyNamesAreLettersDigitsUnderscoreAndDash() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("keys@example.com")
            let login = try await c.emailLogin("keys@example.com", "password1")
            let refresh = try #require(login["refresh_token"])
            for name in ["has spaces", "dot.name", "émoji", "semi;colon", ""] {
                let r = try await c.call(.post, Routes.apiKeys, json: ["name": .string(name)], token: refresh)
                #expect(r.status == 400 && r.code == "InvalidParameter", "\(name): \(r.body)")
            }
            let ok = try await c.call(.post, Routes.apiKeys, json: ["name": "ci_key-2"], token: refresh)
            #expect(ok.status == 201, "\(ok.body)")
        }
    }
}
