// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import AuthServer
import Foundation
import TestSupport
import Synchronization
import Testing

/// `App.signIn` against a live server and its dev identity provider: the loopback flow (a
/// real listener on 127.0.0.1, the browser played by HTTP requests), the device flow, the
/// IdP credentials, provider tokens kept across a restart, timeouts and cancellation.
@Suite(.timeLimit(.minutes(5))) struct SignInTests {
    @Test func loopbackFlowSignsInTheSameUserTwiceAndKeepsProviderTokens() async throws {
        let dir = Scratch.path("signin")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await LiveServer.run { h in
            let app = try h.app(storage: dir)
            let ada = DevIdentity(email: "ada@example.com", name: "Ada")
            let user = try await app.signIn(provider: "github", presenter: .devIdentity(ada, device: false))
            #expect(user.identities.map(\.providerType) == ["oauth2-github"])
            #expect(user.profile.email == "ada@example.com")
            let token = try #require(user.providerTokens?.accessToken)
            // The provider's token calls the provider's API (the dev IdP's GitHub `/user`).
            let me = try await AsyncHTTPTransport().send(
                TransportRequest(
                    method: "GET", url: h.origin + "/dev/idp/github/api/user",
                    headers: [("Authorization", "Bearer \(token)")]))
            #expect(try EJSON(parsing: me.body)["name"] == "Ada")

            try await user.logOut()
            let again = try await app.signIn(provider: "oauth2-github", presenter: .devIdentity(ada, device: false))
            #expect(again.id == user.id)
            // Kept in the store: another process on the same storage sees them.
            let reopened = try h.app(storage: dir)
            #expect(reopened.currentUser?.providerTokens?.accessToken == again.providerTokens?.accessToken)

            let google = try await app.signIn(provider: "google", presenter: .devIdentity(ada, device: false))
            #expect(google.providerTokens?.idToken != nil && google.id != user.id)
        }
    }

    @Test func aBrowserPlayedOverHTTPCompletesTheLoopbackFlow() async throws {
        try await LiveServer.run { h in
            let app = try h.app()
            let seen = Mutex<String?>(nil)
            let user = try await app.signIn(
                provider: "github", customParameters: ["allow_signup": "false"],
                presenter: .url { url in
                    seen.withLock { $0 = url }
                    // The person: the sign-in URL, the IdP's page approved, back to the listener.
                    let t = AsyncHTTPTransport()
                    let start = try await t.send(TransportRequest(method: "GET", url: url))
                    let authorize = try #require(start.header("Location"))
                    #expect(authorize.contains("allow_signup=false"))
                    let approved = try await t.send(
                        TransportRequest(
                            method: "POST", url: h.origin + "/dev/idp/api/approve",
                            headers: [("Content-Type", "application/json")],
                            body: Array(#"{"url":"\#(authorize)","identity":{"email":"b@example.com"}}"#.utf8)))
                    let callback = try #require(try EJSON(parsing: approved.body)["redirect"]?.stringValue)
                    let back = try await t.send(TransportRequest(method: "GET", url: callback))
                    let loopback = try #require(back.header("Location"))
                    #expect(loopback.hasPrefix("http://127.0.0.1:") && !loopback.contains("access_token"))
                    let page = try await t.send(TransportRequest(method: "GET", url: loopback))
                    #expect(String(decoding: page.body, as: UTF8.self).contains("You are signed in"))
                })
            #expect(user.profile.email == "b@example.com")
            #expect(seen.withLock { $0 }?.contains("code_challenge_method=S256") == true)
        }
    }

    @Test func deviceFlowPollsUntilApproved() async throws {
        try await LiveServer.run { h in
            let counter = RequestCounter()
            let app = try h.app(counter: counter)
            let user = try await app.signIn(provider: "google", presenter: .devIdentity(DevIdentity(email: "d@example.com"), device: true))
            #expect(user.profile.email == "d@example.com")
            // Approved from elsewhere while the client polls (GitHub flavour: interval 5 s).
            let shown = Mutex<DeviceAuthorization?>(nil)
            let start = ContinuousClock.now
            async let signedIn = app.signIn(provider: "github", presenter: .device { auth in shown.withLock { $0 = auth } })
            var code: String?
            while code == nil { try await Task.sleep(for: .milliseconds(50)); code = shown.withLock { $0?.userCode } }
            _ = try await h.devIdP("/device/approve", ["userCode": .string(code!), "identity": ["email": "e@example.com"]])
            let e = try await signedIn
            #expect(e.profile.email == "e@example.com")
            // The first poll goes at once; any later one waits the interval (5 s). On a loaded
            // machine the approval may land before the first poll.
            let polls = counter.count("POST", Routes.login("local", provider: "oauth2-github"))
            #expect(polls >= 1)
            if polls > 1 { #expect(start.duration(to: .now) >= .seconds(5), "the second poll waits the interval") }
        }
    }

    @Test func deniedTimedOutAndCancelled() async throws {
        try await LiveServer.run { h in
            let app = try h.app()
            // Denied at the IdP: the listener gets an error.
            await #expect(throws: AuthClientError.self) {
                try await app.signIn(
                    provider: "github",
                    presenter: .url { url in
                        let t = AsyncHTTPTransport()
                        let first = try await t.send(TransportRequest(method: "GET", url: url))
                        let authorize = try #require(first.header("Location"))
                        let approved = try await t.send(
                            TransportRequest(
                                method: "POST", url: h.origin + "/dev/idp/api/approve",
                                headers: [("Content-Type", "application/json")],
                                body: Array(#"{"url":"\#(authorize)","decision":"deny"}"#.utf8)))
                        let callback = try #require(try EJSON(parsing: approved.body)["redirect"]?.stringValue)
                        let back = try await t.send(TransportRequest(method: "GET", url: callback))
                        let loopback = try #require(back.header("Location"))
                        _ = try await t.send(TransportRequest(method: "GET", url: loopback))
                    })
            }
            do {
                try await app.signIn(provider: "github", presenter: .url { _ in }, timeout: .milliseconds(300))
                Issue.record("a sign-in nobody finishes must time out")
            } catch let error as AuthClientError {
                #expect(error.code == AuthClientError.signInTimedOut)
            }
            // Cancelled while it waits for the person (once the URL is out, not while it is
            // still asking the server where it is).
            let presented = Mutex(false)
            let task = Task { try await app.signIn(provider: "github", presenter: .url { _ in presented.withLock { $0 = true } }) }
            while !presented.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("a cancelled sign-in must fail")
            } catch let e as AuthClientError {
                #expect(e.code == AuthClientError.cancelled)
            }
            #expect(app.currentUser == nil)
        }
    }

    /// Every provider kind end to end against the dev identity provider: GitHub (user API),
    /// Google and Apple (ID tokens of its OpenID Connect issuer), Facebook (Graph API).
    @Test(arguments: ["github", "google", "apple", "facebook"])
    func everyProviderKindSignsIn(provider: String) async throws {
        try await LiveServer.run { h in
            let app = try h.app()
            let user = try await app.signIn(
                provider: provider, presenter: .devIdentity(DevIdentity(email: "k@example.com", name: "Kay"), device: false))
            #expect(user.identities.map(\.providerType) == ["oauth2-\(provider)"])
            #expect(user.profile.email == "k@example.com" && user.profile.name == "Kay")
            // The provider's access token alone proves the same identity (GitHub and Facebook
            // check that it was issued to this app; OIDC reads userinfo).
            let token = try #require(user.providerTokens?.accessToken)
            let again = try await app.login(credentials: .oauth(provider: provider, accessToken: token))
            #expect(again.id == user.id)
        }
    }

    @Test func idpCredentialsLogIn() async throws {
        try await LiveServer.run { h in
            let app = try h.app()
            let code = try await h.devCode("oauth2-google", email: "c@example.com")
            let byCode = try await app.login(credentials: .oauth(provider: "google", authCode: code, redirectURI: "http://127.0.0.1:9/cb"))
            #expect(byCode.profile.email == "c@example.com")
        }
    }
}

extension Harness {
    /// A dev IdP request (JSON).
    func devIdP(_ path: String, _ body: EJSON) async throws -> EJSON {
        let response = try await AsyncHTTPTransport().send(
            TransportRequest(
                method: "POST", url: origin + "/dev/idp/api" + path, headers: [("Content-Type", "application/json")],
                body: body.encoded(.relaxed), timeout: .seconds(60)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return try EJSON(parsing: response.body)
    }

    /// An authorization code of the dev IdP for `email`, for the app's `provider`.
    func devCode(_ provider: String, email: String) async throws -> String {
        let config = try await dev("GET", "/apps/local/config")
        let clientId = try #require(config["providers"]?[provider]?["clientId"]?.stringValue)
        let path = provider == "oauth2-github" ? "/dev/idp/github/login/oauth/authorize" : "/dev/idp/oidc/authorize"
        let query = FormEncoding.encode([
            ("client_id", clientId), ("redirect_uri", "http://127.0.0.1:9/cb"), ("response_type", "code"),
            ("scope", "openid email profile"), ("state", "s"),
        ])
        let reply = try await devIdP("/approve", ["url": .string(path + "?" + query), "identity": ["email": .string(email)]])
        let redirect = try #require(reply["redirect"]?.stringValue)
        let fields = try #require(FormEncoding.decode(redirect.split(separator: "?")[1]))
        return try #require(FormEncoding.value("code", in: fields))
    }
}
