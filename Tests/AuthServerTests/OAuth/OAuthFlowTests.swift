// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// The browser flows end to end on a live server with the dev identity provider: the web
/// redirect flow as realm-web's OAuth2Helper reads it, linking through `X-Baas-Location`,
/// the loopback flow with login codes, and the ways to misuse them.
@Suite(.timeLimit(.minutes(5))) struct OAuthFlowTests {
    /// A request whose answer is a redirect (or an error): status, `Location`, `X-Baas-Location`.
    struct Hop {
        var status: Int
        var location: String?
        var baasLocation: String?
        var body: String
    }

    static func hop(_ c: Client, _ url: String, method: HTTPRequest.Method = .get, token: String? = nil) async throws -> Hop {
        // The server's own absolute URLs are followed by path.
        var path = url
        if let r = url.range(of: "://") {
            let rest = url[r.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await c.client.execute(uri: path, method: method, headers: headers, body: nil) { response in
            Hop(
                status: Int(response.status.code), location: response.headers[.location],
                baasLocation: response.headers[HTTPField.Name("X-Baas-Location")!], body: String(buffer: response.body))
        }
    }

    /// Approves the IdP authorize URL `url` as `email` and returns where the IdP sends the browser.
    static func approve(_ c: Client, _ url: String, email: String, deny: Bool = false) async throws -> String {
        var body: EJSONDocument = ["url": .string(url), "identity": ["email": .string(email), "name": "Flo"]]
        if deny { body["decision"] = "deny" }
        let reply = try await c.call(.post, "/dev/idp/api/approve", json: .document(body))
        return try #require(reply["redirect"], "\(reply.body)")
    }

    static func fields(after separator: Character, in url: String) throws -> [(String, String)] {
        let part = try #require(url.split(separator: separator, maxSplits: 1).dropFirst().first, "\(url)")
        return try #require(FormEncoding.decode(part))
    }

    static func live(_ body: @escaping @Sendable (Client) async throws -> Void) async throws {
        let apps = [AppConfiguration(id: "local"), AppConfiguration(id: "other")]
        try await TestServer.run(TestServer.configuration(apps: apps), mode: .live) { c in
            let patch = try await c.call(
                .patch, "\(Routes.dev)/apps/local/config",
                json: [
                    "providers": ["oauth2-github": ["redirectURIs": ["https://app.example.com/cb"]]]
                ])
            #expect(patch.status == 200, "\(patch.body)")
            try await body(c)
        }
    }

    static func start(_ query: [(String, String)], provider: String = "oauth2-github", app: String = "local") -> String {
        Routes.login(app, provider: provider) + "?" + FormEncoding.encode(query)
    }

    @Test func webRedirectFlowAnswersAsRealmWebReadsIt() async throws {
        try await Self.live { c in
            let device = Base64.encode(Array(#"{"deviceId":"65a1b2c3d4e5f6a7b8c9d0e1","appId":"local"}"#.utf8))
            let first = try await Self.hop(
                c, Self.start([("redirect", "https://app.example.com/cb"), ("state", "abcdefghijkl"), ("device", device)]))
            #expect(first.status == 302)
            let authorize = try #require(first.location)
            #expect(authorize.contains("/dev/idp/github/login/oauth/authorize?") && authorize.contains("code_challenge="))
            let callback = try await Self.approve(c, authorize, email: "flo@example.com")
            #expect(callback.contains("/api/client/v2.0/auth/callback?"))
            let last = try await Self.hop(c, callback)
            let location = try #require(last.location)
            #expect(last.status == 302 && location.hasPrefix("https://app.example.com/cb#"), "\(last)")
            // OAuth2Helper.parseRedirectLocation and decodeAuthInfo.
            let fragment = try Self.fields(after: "#", in: location)
            #expect(FormEncoding.value("_baas_client_app_id", in: fragment) == "local")
            #expect(FormEncoding.value("_baas_state", in: fragment) == "abcdefghijkl")
            let parts = try #require(FormEncoding.value("_baas_ua", in: fragment)).split(separator: "$", omittingEmptySubsequences: false)
            #expect(parts.count == 4)
            #expect(parts[3] == "65a1b2c3d4e5f6a7b8c9d0e1")
            let profile = try await c.profile(String(parts[0]))
            #expect(profile.body["user_id"]?.stringValue == String(parts[2]))
            #expect(profile.body["data"]?["email"] == "flo@example.com")
            #expect(try await c.refresh(String(parts[1])).status == 201)

            // The IdP's state is used once.
            let replay = try await Self.hop(c, callback)
            #expect(replay.status == 400 && replay.location == nil, "\(replay)")
        }
    }

    @Test func linkingAnswersWithXBaasLocation() async throws {
        try await Self.live { c in
            let anon = try await c.anonymous()
            let token = try #require(anon["access_token"])
            let start = try await Self.hop(
                c,
                Self.start([
                    ("redirect", "https://app.example.com/cb"), ("state", "linkstate"),
                    ("link", "true"), ("providerRedirectHeader", "true"),
                ]), token: token)
            #expect(start.status == 200 && start.location == nil, "\(start)")
            let authorize = try #require(start.baasLocation)
            let last = try await Self.hop(c, try await Self.approve(c, authorize, email: "lin@example.com"))
            let fragment = try Self.fields(after: "#", in: try #require(last.location))
            #expect(FormEncoding.value("_baas_link", in: fragment) == "ok")
            let profile = try await c.profile(token)
            let types = profile.body["identities"]?.arrayValue?.compactMap { $0["provider_type"]?.stringValue }
            #expect(types == ["anon-user", "oauth2-github"])
            // Without a token, a link start is refused before anything is kept.
            let anonymous = try await Self.hop(c, Self.start([("redirect", "https://app.example.com/cb"), ("state", "s"), ("link", "true")]))
            #expect(anonymous.status == 401)
        }
    }

    @Test func noOpenRedirect() async throws {
        try await Self.live { c in
            let refused = [
                "https://evil.example/cb", "https://app.example.com/cb/../../evil", "https://app.example.com.evil.example/cb",
                "https://app.example.com@evil.example/cb", "http://127.0.0.1:8000/cb", "http://127.0.0.1.evil.example/cb",
                "javascript:alert(1)", "//evil.example/cb", "https://app.example.com/cb#frag",
            ]
            for redirect in refused {
                let hop = try await Self.hop(c, Self.start([("redirect", redirect), ("state", "s")]))
                #expect(hop.status == 400 && hop.location == nil, "\(redirect): \(hop)")
            }
            // A loopback redirect needs PKCE (the loopback flow), and then any port is allowed.
            let loopback = try await Self.hop(
                c,
                Self.start([
                    ("redirect", "http://127.0.0.1:8000/cb"), ("state", "s"),
                    ("code_challenge", DevIdP.pkce().challenge), ("code_challenge_method", "S256"),
                ]))
            #expect(loopback.status == 302)
        }
    }

    /// RFC 8252 section 7.3: a loopback redirect is an IP literal. A name that looks like one
    /// (`127.www.attacker-example.com` resolves wherever its owner says) or an address written
    /// in a form that one parser reads as a name is no loopback redirect, PKCE or not; neither
    /// at the OAuth start nor at the dev identity provider.
    @Test func aNameDressedAsLoopbackIsNoLoopbackRedirect() async throws {
        let dressed = [
            "http://127.www.attacker-example.com/cb", "http://127.0.0.1.attacker-example.com/cb",
            "http://127.0.0.01/cb", "http://0177.0.0.1/cb", "http://0x7f.0.0.1/cb", "http://127.1/cb",
            "http://2130706433/cb", "http://127.0.0.1./cb", "http://localhost/cb", "http://localhost./cb",
            "http://[::ffff:127.0.0.1]/cb", "http://[::ffff:7f00:1]/cb", "https://127.0.0.1/cb",
        ]
        try await Self.live { c in
            let challenge = DevIdP.pkce().challenge
            let clientId = try #require(try await DevIdP(c: c).provider("oauth2-github")["clientId"]?.stringValue)
            let good = try await Self.hop(
                c,
                DevIdP.authorizePath("oauth2-github") + "?"
                    + FormEncoding.encode([
                        ("client_id", clientId), ("redirect_uri", "http://127.0.0.1:9/cb"), ("state", "s"),
                    ]))
            #expect(good.status == 200, "\(good)")
            for redirect in dressed {
                let hop = try await Self.hop(
                    c,
                    Self.start([
                        ("redirect", redirect), ("state", "s"), ("code_challenge", challenge),
                        ("code_challenge_method", "S256"),
                    ]))
                #expect(hop.status == 400 && hop.location == nil, "\(redirect): \(hop)")
                let idp = try await Self.hop(
                    c,
                    DevIdP.authorizePath("oauth2-github") + "?"
                        + FormEncoding.encode([
                            ("client_id", clientId), ("redirect_uri", redirect), ("state", "s"),
                        ]))
                #expect(idp.status == 400, "dev IdP took \(redirect): \(idp)")
            }
            for redirect in ["http://127.0.0.1:8000/cb", "http://127.5.6.7/cb", "http://[::1]:8000/cb"] {
                let hop = try await Self.hop(
                    c,
                    Self.start([
                        ("redirect", redirect), ("state", "s"), ("code_challenge", challenge),
                        ("code_challenge_method", "S256"),
                    ]))
                #expect(hop.status == 302, "\(redirect): \(hop)")
            }
        }
    }

    /// A web redirect link finishes only in the browser that started it: the start sets a
    /// cookie for the callback, and a browser that brings the IdP's answer without it (the
    /// victim of an attacker who started the link with their own token) links nothing.
    @Test func aLinkFinishesOnlyInTheBrowserThatStartedIt() async throws {
        try await Self.live { c in
            func startLink(_ token: String) async throws -> (authorize: String, cookie: String) {
                try await c.client.execute(
                    uri: Self.start([
                        ("redirect", "https://app.example.com/cb"), ("state", "s"), ("link", "true"),
                        ("providerRedirectHeader", "true"),
                    ]),
                    method: .get, headers: [.authorization: "Bearer \(token)"], body: nil
                ) { r in
                    let cookie = try #require(r.headers[.setCookie], "no cookie")
                    #expect(
                        cookie.contains("HttpOnly") && cookie.contains("Path=/api/client/v2.0/auth/callback")
                            && cookie.contains("Secure; SameSite=None") && cookie.contains("Max-Age=600"),
                        "loopback over http is a secure context: \(cookie)")
                    return (try #require(r.headers[HTTPField.Name("X-Baas-Location")!]), String(cookie.prefix { $0 != ";" }))
                }
            }
            func callback(_ url: String, cookie: String?) async throws -> String {
                var path = url
                if let r = url.range(of: "://") { path = String(url[r.upperBound...].drop { $0 != "/" }) }
                var headers: HTTPFields = [.userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"]
                if let cookie { headers[.cookie] = cookie }
                return try await c.client.execute(uri: path, method: .get, headers: headers, body: nil) { r in
                    #expect(r.headers[.setCookie]?.contains("Max-Age=0") == true, "the cookie is cleared")
                    return r.headers[.location] ?? ""
                }
            }
            func identities(_ token: String) async throws -> [String] {
                try await c.profile(token).body["identities"]?.arrayValue?.compactMap { $0["provider_type"]?.stringValue } ?? []
            }
            let attacker = try #require(try await c.anonymous()["access_token"])
            let planted = try await startLink(attacker)
            // The victim's browser, signed in at the IdP, comes back without the attacker's cookie.
            let victim = try await callback(try await Self.approve(c, planted.authorize, email: "victim@example.com"), cookie: nil)
            #expect(victim.contains("_baas_error=") && victim.contains("another") && !victim.contains("_baas_link"), "\(victim)")
            #expect(try await identities(attacker) == ["anon-user"])
            // A cookie of another flow does not do either.
            let first = try await startLink(attacker), second = try await startLink(attacker)
            let wrong = try await callback(try await Self.approve(c, first.authorize, email: "victim@example.com"), cookie: second.cookie)
            #expect(wrong.contains("_baas_error="), "\(wrong)")

            // The browser that started it finishes it.
            let owner = try #require(try await c.anonymous()["access_token"])
            let mine = try await startLink(owner)
            let done = try await callback(try await Self.approve(c, mine.authorize, email: "owner@example.com"), cookie: mine.cookie)
            #expect(done.contains("_baas_link=ok"), "\(done)")
            #expect(try await identities(owner) == ["anon-user", "oauth2-github"])
        }
    }

    /// A client's `idp_` parameters reach the IdP, but never as one of the protocol's own: a
    /// request object (`request`, `request_uri`) would replace the server's `redirect_uri`.
    @Test func idpParametersCannotSetTheProtocolsOwn() async throws {
        try await Self.live { c in
            for name in ["idp_request", "idp_request_uri", "idp_redirect_uri", "idp_client_id", "idp_Request_URI", "idp_state"] {
                let hop = try await Self.hop(
                    c,
                    Self.start([
                        ("redirect", "https://app.example.com/cb"), ("state", "s"),
                        (name, "https://evil.example/req"),
                    ]))
                #expect(hop.status == 400 && hop.location == nil && hop.body.contains(name), "\(name): \(hop)")
            }
            let fine = try await Self.hop(
                c,
                Self.start([
                    ("redirect", "https://app.example.com/cb"), ("state", "s"),
                    ("idp_login_hint", "ada@example.com"),
                ]))
            #expect(fine.status == 302 && fine.location?.contains("login_hint=ada%40example.com") == true, "\(fine)")
        }
    }

    @Test func loopbackFlowGivesASingleUseLoginCodeBoundToTheChallenge() async throws {
        try await Self.live { c in
            func loginCode(app: String = "local", provider: String = "oauth2-github", challenge: String, deny: Bool = false) async throws -> [(
                String, String
            )] {
                let start = try await Self.hop(
                    c,
                    Self.start(
                        [
                            ("redirect", "http://127.0.0.1:43210/callback"), ("state", "loop"),
                            ("code_challenge", challenge), ("code_challenge_method", "S256"),
                        ],
                        provider: provider, app: app))
                let authorize = try #require(start.location, "\(start)")
                let last = try await Self.hop(c, try await Self.approve(c, authorize, email: "loop@example.com", deny: deny))
                let location = try #require(last.location)
                #expect(location.hasPrefix("http://127.0.0.1:43210/callback?") && !location.contains("#"), "\(location)")
                let fields = try Self.fields(after: "?", in: location)
                #expect(FormEncoding.value("state", in: fields) == "loop")
                return fields
            }
            let (verifier, challenge) = DevIdP.pkce()
            let code = try #require(FormEncoding.value("code", in: try await loginCode(challenge: challenge)))
            let ok = try await c.login("oauth2-github", ["loginCode": .string(code), "codeVerifier": .string(verifier)])
            #expect(ok.status == 200 && ok["refresh_token"] != nil, "\(ok.body)")
            let again = try await c.login("oauth2-github", ["loginCode": .string(code), "codeVerifier": .string(verifier)])
            #expect(again.status == 401 && again.message == "login code is unknown, used or expired")

            let code2 = try #require(FormEncoding.value("code", in: try await loginCode(challenge: challenge)))
            let wrong = try await c.login("oauth2-github", ["loginCode": .string(code2), "codeVerifier": .string(DevIdP.pkce().verifier)])
            #expect(wrong.status == 401 && wrong.message?.contains("does not match") == true)
            // Spent by the failed attempt.
            #expect(try await c.login("oauth2-github", ["loginCode": .string(code2), "codeVerifier": .string(verifier)]).status == 401)

            let code3 = try #require(FormEncoding.value("code", in: try await loginCode(challenge: challenge)))
            let otherApp = try await c.inApp("other").login("oauth2-github", ["loginCode": .string(code3), "codeVerifier": .string(verifier)])
            #expect(otherApp.status == 401 && otherApp.message?.contains("another app") == true, "\(otherApp.body)")

            let denied = try await loginCode(challenge: challenge, deny: true)
            #expect(FormEncoding.value("code", in: denied) == nil)
            #expect(FormEncoding.value("error", in: denied) == "the person denied the sign-in")

            // The OIDC flavour, through discovery and an ID token with the flow's nonce.
            let oidc = try #require(FormEncoding.value("code", in: try await loginCode(provider: "oauth2-google", challenge: challenge)))
            let google = try await c.login("oauth2-google", ["loginCode": .string(oidc), "codeVerifier": .string(verifier)])
            #expect(google.status == 200 && google["provider_id_token"] != nil, "\(google.body)")
        }
    }

    @Test func authorizePageWorksAsAForm() async throws {
        try await Self.live { c in
            let (_, challenge) = DevIdP.pkce()
            let start = try await Self.hop(
                c,
                Self.start([
                    ("redirect", "http://127.0.0.1:43210/cb"), ("state", "s"),
                    ("code_challenge", challenge), ("code_challenge_method", "S256"),
                ]))
            let page = try await Self.hop(c, try #require(start.location))
            #expect(page.status == 200 && page.body.contains("<form method=\"post\""))
            let token = try #require(
                page.body.firstRange(of: #/name="request" value="([0-9a-f]+)"/#).map { String(page.body[$0]) }
                    .flatMap { $0.split(separator: "\"").dropFirst(3).first.map(String.init) })
            let form = FormEncoding.encode([
                ("request", token), ("email", "form@example.com"), ("name", "Form"),
                ("verified", "true"), ("decision", "approve"),
            ])
            let path = "/dev/idp/github/login/oauth/authorize"
            let posted = try await c.client.execute(
                uri: path, method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: form)
            ) { r in (Int(r.status.code), r.headers[.location]) }
            #expect(posted.0 == 302 && posted.1?.contains("/api/client/v2.0/auth/callback?code=") == true, "\(posted)")
            // The page's token is used once.
            let again = try await c.client.execute(
                uri: path, method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: form)
            ) { r in Int(r.status.code) }
            #expect(again == 400)
        }
    }
}

/// Starting a sign-in stores nothing (the flow travels sealed in its state, a passkey
/// challenge is sealed too), so no number of starts, from however many networks, fills
/// anything or refuses anyone (an app once kept at most 20,000, which 400 networks could fill
/// in 25 s). Seen in the database itself: a second store on the server's SQLite file finds no
/// row for any state or challenge handed out, and one for a state once its callback spent it.
/// In-process, against an app of a real GitHub client and passkeys (the dev identity
/// provider's address is unknown to a router-only server).
@Suite(.timeLimit(.minutes(5))) struct SignInStartTests {
    @Test func startingASignInStoresNothing() async throws {
        let data = Scratch.path("starts")
        defer { try? FileManager.default.removeItem(atPath: data) }
        var config = TestServer.configuration(database: .directory(data), dev: false)
        config.publicURL = "https://auth.example.com"
        try config.loadConfig(
            Array(
                #"""
                {"apps": [{"id": "local", "rateLimits": {"enabled": false},
                  "providers": {"oauth2-github": {"clientId": "gh", "clientSecret": "s", "redirectURIs": ["https://app.example.com/cb"]}},
                  "webauthn": {"rpId": "localhost", "origins": ["http://localhost:5173"]}}]}
                """#.utf8), file: "c.json")
        try await TestServer.run(config) { c in
            let path = OAuthFlowTests.start([("redirect", "https://app.example.com/cb"), ("state", "s")])
            var states: [String] = []
            var challenges: [String] = []
            for _ in 0..<200 {
                let location = try await c.client.execute(uri: path, method: .get) { $0.headers[.location] ?? "" }
                let query = FormEncoding.decode(location.drop { $0 != "?" }.dropFirst()) ?? []
                states.append(try #require(FormEncoding.value("state", in: query), "\(location)"))
                let options = try await c.call(.post, c.appRoute + "/auth/providers/passkey/options")
                challenges.append(try #require(options.body["publicKey"]?["challenge"]?.stringValue, "\(options.body)"))
            }
            #expect(Set(states).count == 200 && Set(challenges).count == 200)
            let store = try SQLiteStore(path: data + "/authsh.sqlite")
            for state in states {
                #expect(try await store.takeSignIn(id: SealedStates.id(state), kind: .flow) == nil, "a start stored its flow")
            }
            for challenge in challenges {
                #expect(try await store.takeSignIn(id: SealedStates.id(challenge), kind: .passkey) == nil, "options stored a challenge")
            }
            // A callback spends its state (here the person denied the sign-in at the IdP): that
            // much is written, once.
            let spent = try await c.client.execute(uri: Routes.base + "/auth/callback?state=\(states[0])&error=access_denied", method: .get) {
                $0.status
            }
            #expect(spent == .found)
            #expect(try await store.takeSignIn(id: SealedStates.id(states[0]), kind: .flow) != nil, "the spent state is recorded")
        }
    }
}
