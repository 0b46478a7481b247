// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import Crypto
import Foundation
import Testing

/// Bad input gets a clear 4xx naming what was wrong, never a crash, a 500 or a value that is
/// accepted and then unusable.
@Suite(.timeLimit(.minutes(5))) struct InputLimitTests {
    static let secret = "a-shared-secret-of-32-bytes-or-more"

    /// A custom-token app signing with `secret`.
    static var customTokenApp: AppConfiguration {
        var app = AppConfiguration(id: "local")
        var ct = AppConfiguration.CustomToken()
        ct.signingKeys = [secret]
        app.providers.customToken = ct
        return app
    }

    /// An HS256 JWT whose payload is `payload` exactly as written (numbers any JSON allows).
    static func jwt(_ payload: String) -> String {
        let header = Base64.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), urlSafe: true)
        let signed = header + "." + Base64.encode(Array(payload.utf8), urlSafe: true)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signed.utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return signed + "." + Base64.encode(Array(mac), urlSafe: true)
    }

    @Test(
        arguments: [
            (#"{"sub":"a","exp":1e300}"#, 200, nil),
            (#"{"sub":"a","exp":-1e300}"#, 401, "expired"),
            (#"{"sub":"a","exp":1.7976931348623157e308,"nbf":1e300}"#, 401, "not valid yet"),
            (#"{"sub":"a","exp":1e300,"iat":1e300}"#, 401, "issued in the future"),
            (#"{"sub":"a","exp":1e300,"nbf":0,"iat":1000000000}"#, 200, nil),
        ] as [(String, Int, String?)])
    func customTokenClaimsOfAnyRange(payload: String, status: Int, reason: String?) async throws {
        try await TestServer.run(TestServer.configuration(apps: [Self.customTokenApp])) { c in
            let r = try await c.login("custom-token", ["provider": "custom-token", "token": .string(Self.jwt(payload))])
            #expect(r.status == status, "\(payload): \(r.body)")
            if let reason { #expect(r.code == "AuthError" && r.message?.contains(reason) == true, "\(r.body)") }
            // The server is still there.
            #expect(try await c.call(.get, Routes.location("local")).status == 200)
        }
    }

    @Test(arguments: [
        EJSON.int64(.max), .int64(Int64.max / 2), .double(1e300), .double(9e15), .int64(-1), .string("1"),
    ])
    func devClockRefusesWhatItCannotShow(advance: EJSON) async throws {
        try await TestServer.run { c in
            let r = try await c.call(.post, "\(Routes.dev)/clock", json: ["advanceSeconds": advance])
            #expect(r.status == 400 && r.code == "InvalidParameter" && r.message?.contains("advanceSeconds") == true, "\(r.body)")
            #expect(try await c.call(.get, "\(Routes.dev)/clock").status == 200)
            #expect(try await c.anonymous().status == 200)
        }
    }

    @Test func linkingAnAPIKeyIsTheClientsMistake() async throws {
        try await TestServer.run { c in
            try await c.registerConfirmed("k@example.com")
            let login = try await c.emailLogin("k@example.com", "password1")
            let key = try await c.call(.post, Routes.apiKeys, json: ["name": "k"], token: login["refresh_token"]!)
            let r = try await c.login("api-key", ["provider": "api-key", "key": .string(key["key"]!)], link: login["access_token"]!)
            #expect(r.status == 400 && r.code == "InvalidParameter" && r.message == "linking an API key identity is not allowed")
        }
    }

    @Test(arguments: [
        ("nul\u{0}@example.com", "control character"), ("esc\u{1B}[31m@example.com", "control character"),
        ("del\u{7F}@example.com", "control character"), ("bidi\u{202E}moc.elpmaxe@example.com", "formatting"),
        ("zero\u{200B}width@example.com", "formatting"), ("nodomain@", "no domain"), ("two@at@example.com", "more than one"),
        ("noat.example.com", "no '@'"), ("@example.com", "before '@'"), ("a b@example.com", "whitespace"),
        ("dots@example..com", "empty label"), ("angle<x>@example.com", "'<'"), ("line\n@example.com", "control character"),
    ])
    func emailAddressesThatAreNotAddresses(email: String, reason: String) async throws {
        try await TestServer.run { c in
            let r = try await c.userpass("register", ["email": .string(email), "password": "password1"])
            #expect(r.status == 400 && r.code == "InvalidParameter" && r.message?.contains(reason) == true, "\(r.body)")
            let fine = try await c.userpass("register", ["email": "ünïcode.user+tag@exämple.org", "password": "password1"])
            #expect(fine.status == 201, "\(fine.body)")
            for action in ["confirm/send", "reset/send"] {
                let other = try await c.userpass(action, ["email": .string(email)])
                #expect(other.status == 400 && other.code == "InvalidParameter", "\(action): \(other.body)")
            }
        }
    }

    @Test func customDataAndStoreValuesAreRefusedWhereTheyComeIn() async throws {
        let source = #"""
            local function nest(n) local v = 1 for _ = 1, n do v = { v } end return v end
            return {
              deepCustomData = function(n) context.users.setCustomData(context.user.id, { d = nest(n) }) return true end,
              bigCustomData = function(n) context.users.setCustomData(context.user.id, { s = ("x"):rep(n) }) return true end,
              deepStore = function(n) context.store.set("deep", nest(n)) return true end,
              readStore = function() local v, n = context.store.get("deep"), 0 while type(v) == "table" do v, n = v[1], n + 1 end return n end,
            }
            """#
        let dir = try PluginDirectory(["limits.lua": source])
        try await TestServer.run(TestServer.withPlugins(dir.path)) { (c: Client) async throws in
            let login = try await c.anonymous()
            let (at, rt) = (login["access_token"]!, login["refresh_token"]!)
            // At the limits: accepted, and every later token still works.
            #expect(try await c.function("deepCustomData", [.int32(19)], token: at).body == true)
            #expect(try await c.function("bigCustomData", [.int32(15_000)], token: at).body == true)
            let refreshed = try await c.refresh(rt)
            #expect(refreshed.status == 201)
            #expect(try await c.profile(refreshed["access_token"]!).status == 200)
            // Past them: refused with the limit named, nothing stored.
            let deep = try await c.function("deepCustomData", [.int32(40)], token: at)
            #expect(deep.code == "FunctionExecutionError" && deep.message?.contains("over the limit of 20") == true, "\(deep.body)")
            let big = try await c.function("bigCustomData", [.int32(64 << 10)], token: at)
            #expect(big.code == "FunctionExecutionError" && big.message?.contains("over the limit of 16384") == true, "\(big.body)")
            #expect(try await c.refresh(rt).status == 201)
            #expect(try await c.function("deepStore", [.int32(31)], token: at).body == true)
            #expect(try await c.function("readStore", token: at).body == .int32(31))
            let store = try await c.function("deepStore", [.int32(71)], token: at)
            #expect(store.code == "FunctionExecutionError" && store.message?.contains("over the limit of 32") == true, "\(store.body)")
            #expect(try await c.function("readStore", token: at).body == .int32(31))
        }
    }

    @Test func aMalformedChunkedBodyIsABadRequest() async throws {
        try await TestServer.run(TestServer.configuration(), mode: .live) { c in
            let port = try #require(c.client.port)
            let request =
                "POST \(Routes.login("local", provider: "anon-user")) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
            let answer = try await RawHTTP.exchange(port: port, request)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
            #expect(answer.contains("malformed HTTP request"), "\(answer.prefix(300))")
        }
    }
}
