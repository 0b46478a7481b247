// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
@testable import AuthServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// CORS for the client API, per app (`allowedRequestOrigins`), as a browser sees it through
/// its headers: preflights answered 204 for an allowed origin and 403 for another, every answer
/// to an allowed origin (errors too) readable by the page, nothing opened outside the client
/// API. The browser itself is in ``BrowserAppTests``.
@Suite(.timeLimit(.minutes(5))) struct CrossOriginTests {
    static let page = "https://app.example.com"
    static let other = "https://evil.example.net"

    struct Answer {
        let status: Int
        let headers: HTTPFields
        var allowOrigin: String? { headers[.accessControlAllowOrigin] }
        /// Every `Access-Control-*` header.
        var accessControl: [String] { headers.filter { $0.name.canonicalName.hasPrefix("access-control-") }.map { $0.name.canonicalName } }
    }

    static func send(
        _ c: Client, _ method: HTTPRequest.Method, _ path: String, origin: String?,
        headers extra: HTTPFields = [:], json: String? = nil
    ) async throws -> Answer {
        var headers = extra
        if let origin { headers[.origin] = origin }
        if json != nil { headers[.contentType] = "application/json" }
        return try await c.client.execute(uri: path, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) {
            Answer(status: Int($0.status.code), headers: $0.headers)
        }
    }

    static func preflight(_ c: Client, _ path: String, origin: String, method: String = "POST") async throws -> Answer {
        try await send(
            c, .options, path, origin: origin,
            headers: [.accessControlRequestMethod: method, .accessControlRequestHeaders: "authorization,content-type"])
    }

    /// The client API's routes a web app calls, with the method it calls each with.
    static func routes(_ app: String) -> [(String, String)] {
        [
            ("GET", Routes.location(app)), ("POST", Routes.login(app, provider: "anon-user")),
            ("POST", Routes.login(app, provider: "anon-user") + "?link=true"), ("POST", Routes.session), ("DELETE", Routes.session),
            ("GET", Routes.profile), ("POST", Routes.apiKeys), ("PUT", Routes.apiKeys + "/0123456789abcdef01234567/enable"),
            ("DELETE", Routes.deleteUser), ("POST", Routes.userpass(app, "register")), ("POST", Routes.userpass(app, "reset/call")),
            ("POST", "\(Routes.base)/app/\(app)/functions/call"), ("GET", Routes.login(app, provider: "oauth2-google")),
        ]
    }

    static func configured(_ origins: [String]?, dev: Bool = false) throws -> ServerConfiguration {
        var app = AppConfiguration(id: "local")
        if let origins { app.allowedRequestOrigins = try RequestOrigins(origins, path: "allowedRequestOrigins") }
        return TestServer.configuration(apps: [app], dev: dev)
    }

    @Test func anAllowedOriginsPreflightIsAnsweredOnEveryClientRoute() async throws {
        try await TestServer.run(try Self.configured([Self.page])) { (c: Client) async throws in
            for (method, path) in Self.routes("local") {
                let answer = try await Self.preflight(c, path, origin: Self.page, method: method)
                #expect(answer.status == 204, "\(method) \(path)")
                #expect(answer.allowOrigin == Self.page, "\(path)")
                #expect(answer.headers[.accessControlAllowCredentials] == "true")
                let methods = answer.headers[.accessControlAllowMethods] ?? ""
                #expect(methods.contains(method), "\(path): \(methods)")
                let allowed = (answer.headers[.accessControlAllowHeaders] ?? "").lowercased()
                #expect(["authorization", "content-type", "accept"].allSatisfy(allowed.contains), "\(allowed)")
                #expect(answer.headers[.accessControlMaxAge] != nil)
            }
        }
    }

    @Test func anotherOriginsPreflightIsRefusedWithNoAccessControlHeader() async throws {
        try await TestServer.run(try Self.configured([Self.page])) { (c: Client) async throws in
            for (method, path) in Self.routes("local") {
                let answer = try await Self.preflight(c, path, origin: Self.other, method: method)
                #expect(answer.status == 403, "\(path)")
                #expect(answer.accessControl.isEmpty, "\(path): \(answer.accessControl)")
            }
            // The refusal names the origin as printable text only, and bounded.
            let hostile = "https://a.example\u{1b}[31m" + String(repeating: "x", count: 500)
            try await c.client.execute(
                uri: Routes.session, method: .options,
                headers: [.origin: hostile, .accessControlRequestMethod: "POST"]
            ) { response in
                let body = String(buffer: response.body)
                #expect(response.status == .forbidden && !body.contains("\u{1b}") && !body.contains("u001b") && body.count < 400, "\(body)")
            }
            // The origin is compared whole: not a prefix, not another scheme or port, not "null".
            for origin in [
                "https://app.example.com.evil.net", "http://app.example.com", "https://app.example.com:8443", "null",
                "https://APP.example.com", Self.page + ", " + Self.other,
            ] {
                #expect(try await Self.preflight(c, Routes.session, origin: origin).status == 403, "\(origin)")
            }
        }
    }

    @Test func everyAnswerToAnAllowedOriginCanBeReadErrorsIncluded() async throws {
        try await TestServer.run(try Self.configured([Self.page])) { (c: Client) async throws in
            let login = try await Self.send(c, .post, Routes.login("local", provider: "anon-user"), origin: Self.page, json: "{}")
            #expect(login.status == 200)
            // An error: no token.
            let refused = try await Self.send(c, .post, Routes.session, origin: Self.page)
            #expect(refused.status == 401)
            for answer in [login, refused] {
                #expect(answer.allowOrigin == Self.page)
                #expect(answer.headers[.accessControlAllowCredentials] == "true")
                #expect(answer.headers[values: .vary].contains("Origin"))
                #expect((answer.headers[.accessControlExposeHeaders] ?? "").contains("X-Baas-Location"))
            }
            // Another origin's request is answered (the browser keeps the answer from its page),
            // with nothing that would let the page read it.
            let other = try await Self.send(c, .post, Routes.login("local", provider: "anon-user"), origin: Self.other, json: "{}")
            #expect(other.accessControl.isEmpty)
            #expect(other.headers[values: .vary].contains("Origin"))
        }
    }

    @Test func originsArePerAppAndTheRoutesWithoutAnAppFollowAnyApp() async throws {
        var shop = AppConfiguration(id: "shop")
        shop.allowedRequestOrigins = try RequestOrigins(["https://shop.example.com"], path: "x")
        var blog = AppConfiguration(id: "blog")
        blog.allowedRequestOrigins = try RequestOrigins([Self.page], path: "x")
        try await TestServer.run(TestServer.configuration(apps: [shop, blog], dev: false)) { (c: Client) async throws in
            #expect(try await Self.preflight(c, Routes.login("shop", provider: "anon-user"), origin: Self.page).status == 403)
            #expect(try await Self.preflight(c, Routes.login("blog", provider: "anon-user"), origin: Self.page).status == 204)
            #expect(try await Self.preflight(c, Routes.login("nope", provider: "anon-user"), origin: Self.page).status == 403)
            #expect(try await Self.preflight(c, Routes.session, origin: "https://shop.example.com").status == 204)
            #expect(try await Self.preflight(c, Routes.session, origin: Self.other).status == 403)
        }
    }

    @Test func defaultsAreNoneOutsideDevModeAndAnyInDevMode() async throws {
        try await TestServer.run(try Self.configured(nil, dev: false)) { (c: Client) async throws in
            #expect(try await Self.preflight(c, Routes.session, origin: "http://localhost:5173").status == 403)
        }
        try await TestServer.run(try Self.configured(nil, dev: true)) { (c: Client) async throws in
            let answer = try await Self.preflight(c, Routes.session, origin: "http://localhost:5173")
            #expect(answer.status == 204 && answer.allowOrigin == "http://localhost:5173")
        }
        // A dev server whose app lists origins follows its list.
        try await TestServer.run(try Self.configured([Self.page], dev: true)) { (c: Client) async throws in
            #expect(try await Self.preflight(c, Routes.login("local", provider: "anon-user"), origin: "http://localhost:5173").status == 403)
        }
    }

    /// The dev API, the dev identity provider and the admin API keep their own guards: no
    /// origin is let in by `allowedRequestOrigins`, `*` included.
    @Test func nothingOutsideTheClientAPIIsOpened() async throws {
        try await TestServer.run(try Self.configured(["*"], dev: true)) { (c: Client) async throws in
            for path in ["\(Routes.dev)/apps/local/outbox", "/api/admin/v1/users", "/dev-idp/authorize", "/healthz", "/admin"] {
                let preflight = try await Self.preflight(c, path, origin: Self.page, method: "GET")
                #expect(preflight.accessControl.isEmpty && preflight.status != 204, "\(path): \(preflight.status)")
                let get = try await Self.send(c, .get, path, origin: Self.page)
                #expect(get.accessControl.isEmpty, "\(path)")
            }
        }
    }

    /// The start-up log says, per app, its providers and which origins it lets in.
    @Test func theStartUpLogNamesEachAppsOrigins() async throws {
        for (origins, dev, says) in [([Self.page], false, Self.page), (nil, false, "none (allowedRequestOrigins)"), (nil, true, "any (dev mode)")] {
            let log = CapturedLog()
            var config = try Self.configured(origins, dev: dev)
            config.logger = log.logger
            try await TestServer.run(config) { (_: Client) async throws in }
            let line = log.lines.withLock { $0 }.first { $0.message == "app local" }
            #expect(line?.level == .notice && line?.metadata["origins"] == says, "\(String(describing: line))")
            #expect(line?.metadata["providers"]?.hasPrefix("anon-user,local-userpass,api-key") == true)
        }
    }

    @Test func theConfigListIsReadAsBrowsersWriteOrigins() throws {
        let read = try RequestOrigins(
            ["HTTPS://App.Example.com:443", "http://localhost:5173", "http://[::1]:80", "capacitor://localhost"],
            path: "allowedRequestOrigins")
        #expect(read.origins == ["https://app.example.com", "http://localhost:5173", "http://[::1]", "capacitor://localhost"])
        #expect(read.allows("https://app.example.com") && !read.allows("https://app.example.com:443"))
        for bad in [
            "https://app.example.com/", "app.example.com", "null", "https://app.example.com:99999", "https://a.com/path",
            "https://user@a.com", "https://", "https://a.com?x", "https://exämple.com",
        ] {
            #expect {
                try RequestOrigins(["*", bad], path: "apps[0].allowedRequestOrigins")
            } throws: { error in
                (error as? ConfigError)?.key == "apps[0].allowedRequestOrigins[1]"
            }
        }
        // Through a config file, and back out through the dev API's view.
        var config = ServerConfiguration()
        try config.loadConfig(Array(#"{"apps": [{"id": "local", "allowedRequestOrigins": ["https://App.example.com"]}]}"#.utf8), file: "c.json")
        #expect(config.apps.first?.allowedRequestOrigins?.origins == ["https://app.example.com"])
        #expect(config.apps.first?.ejson["allowedRequestOrigins"] == .array(["https://app.example.com"]))
    }

    /// realm-web's `user.mongoClient("mongodb-atlas")` calls `functions/call` with a `service`:
    /// an app function of the same name is not what it asked for.
    @Test func aCallNamingAServiceIsRefusedNotRunAsAnAppFunction() async throws {
        try await TestServer.run(TestServer.withPlugins(PluginDirectory.examples)) { (c: Client) async throws in
            let token = try #require(try await c.anonymous()["access_token"])
            let path = "\(Routes.base)/app/local/functions/call"
            let plain = try await c.call(.post, path, json: ["name": "greet", "arguments": ["Ada"]], token: token)
            #expect(plain.status == 200 && plain.body == "Hello, Ada!")
            let named = try await c.call(.post, path, json: ["name": "greet", "arguments": ["Ada"], "service": "mongodb-atlas"], token: token)
            #expect(named.status == 404 && named.code == "ServiceNotFound" && named.message?.contains("mongodb-atlas") == true, "\(named.body)")
            let odd = try await c.call(.post, path, json: ["name": "greet", "service": 3], token: token)
            #expect(odd.status == 400 && odd.code == "InvalidParameter")
            let null = try await c.call(.post, path, json: ["name": "greet", "arguments": ["Ada"], "service": .null], token: token)
            #expect(null.status == 200)
        }
    }
}
