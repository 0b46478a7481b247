// SPDX-License-Identifier: Apache-2.0
import AuthStorage
import AuthProtocol
@testable import AuthServer
import Foundation
import HTTPTypes
import NIOCore
import TestSupport
import Testing

/// The admin page: in a real browser (headless Chromium) an operator signs in, finds a user
/// and disables them, and their next login fails; the page has no console error; posts
/// without the CSRF token, or without a session, are refused.
@Suite(.timeLimit(.minutes(5))) struct AdminPageTests {
    @Test func anOperatorDisablesAUserInABrowser() async throws {
        let directory = Scratch.path("page")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(try AdminHarness.configuration(directory: directory), mode: .live) { c in
            try await c.registerConfirmed("grace@example.com", "Pass-word-1")
            try await c.registerConfirmed("alan@example.com", "Pass-word-2")
            let id = try AdminHarness.userId(try await c.emailLogin("grace@example.com", "Pass-word-1"))
            _ = try await c.emailLogin("alan@example.com", "Pass-word-2")
            let origin = "http://127.0.0.1:\(try #require(c.client.port))"
            let shots = ProcessInfo.processInfo.environment["AUTHSH_SCREENSHOT_OUT"] ?? ""
            let output = directory + "/browser.json"
            let browser = try ChildProcess(
                [
                    Binary.repository + "/.build/venv/bin/python3", Binary.repository + "/Tests/browser/admin-browser.py",
                    origin, AdminHarness.key, "grace@",
                ] + (shots.isEmpty ? [] : [shots]), output: output)
            let report = try await BrowserReport.read(browser, output: output, seconds: 60)
            let rows = report["searchRows"] as? [String] ?? []
            #expect(rows.count == 1 && rows.first?.contains("grace@example.com") == true, "the search found Grace only: \(rows)")
            #expect(report["stateBefore"] as? String == "enabled" && report["stateAfter"] as? String == "disabled", "\(report)")
            #expect((report["question"] as? String)?.hasPrefix("Disable user") == true)
            #expect(report["styled"] as? Bool == true, "the style sheet applied")
            let console = report["console"] as? [[String: Any]] ?? []
            #expect(console.isEmpty, "console messages: \(console)")

            // Her next login fails; the audit log names the key.
            #expect(try await c.emailLogin("grace@example.com", "Pass-word-1").code == "UserDisabled")
            let store = try SQLiteStore(path: directory + "/authsh.sqlite")
            let events = try await store.auditEvents(AuditFilter(userId: id, event: "user_disabled", limit: 10))
            #expect(events.count == 1 && events.first?.actor == "admin:ops")
        }
    }

    /// Raw HTTP: a session cookie and a CSRF token, and what happens without either.
    @Test func formsNeedTheSessionAndItsToken() async throws {
        let directory = Scratch.path("page")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Live: a real loopback connection, where a key may be typed over http.
        try await TestServer.run(try AdminHarness.configuration(directory: directory), mode: .live) { c in
            let id = try AdminHarness.userId(try await c.anonymous())
            func send(_ method: HTTPRequest.Method, _ path: String, form: String? = nil, cookie: String? = nil) async throws
                -> (status: Int, headers: HTTPFields, body: String)
            {
                var headers: HTTPFields = [:]
                if let cookie { headers[.cookie] = cookie }
                if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
                return try await c.client.execute(uri: path, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) }) {
                    (Int($0.status.code), $0.headers, String(buffer: $0.body))
                }
            }
            func token(_ html: String) throws -> String {
                let range = try #require(html.range(of: #"name="csrf" value=""#))
                return String(html[range.upperBound...].prefix { $0 != "\"" })
            }
            // Not signed in: to the sign-in page.
            #expect(try await send(.get, "/admin/apps/local/users").headers[.location] == "/admin/login")
            let login = try await send(.get, "/admin/login")
            #expect(login.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(login.headers[.xFrameOptions] == "DENY" && !login.body.contains("<script"))
            let loginCookie = try #require(login.headers[values: .setCookie].first { $0.hasPrefix("authsh_admin_login=") })
            #expect(loginCookie.contains("HttpOnly") && loginCookie.contains("SameSite=Strict"))
            let loginToken = try token(login.body)
            let pair = String(loginCookie.prefix { $0 != ";" })

            // The sign-in form: the key, its token and cookie.
            #expect(try await send(.post, "/admin/login", form: "key=\(AdminHarness.key)", cookie: pair).status == 403, "no token")
            #expect(try await send(.post, "/admin/login", form: "csrf=\(loginToken)&key=\(AdminHarness.key)").status == 403, "no cookie")
            let wrong = try await send(.post, "/admin/login", form: "csrf=\(loginToken)&key=not-the-key", cookie: pair)
            #expect(wrong.status == 401 && wrong.body.contains("not an admin key"))
            let signedIn = try await send(.post, "/admin/login", form: "csrf=\(loginToken)&key=\(AdminHarness.key)", cookie: pair)
            #expect(signedIn.status == 303)
            let session = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("authsh_admin=") })
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Strict") && session.contains("Path=/admin"))
            let cookie = String(session.prefix { $0 != ";" })

            let page = try await send(.get, "/admin/apps/local/users/\(id)", cookie: cookie)
            #expect(page.status == 200 && page.body.contains(id))
            let csrf = try token(page.body)
            // A post without the token, or with another, is refused and changes nothing.
            #expect(try await send(.post, "/admin/apps/local/users/\(id)/disable", form: "confirm=yes", cookie: cookie).status == 403)
            #expect(
                try await send(.post, "/admin/apps/local/users/\(id)/disable", form: "confirm=yes&csrf=\(loginToken)", cookie: cookie).status == 403)
            #expect(
                try await send(.post, "/admin/apps/local/users/\(id)/disable", form: "confirm=yes&csrf=\(csrf)").headers[.location] == "/admin/login")
            #expect(try await AdminHarness.admin(c, .get, "/users/\(id)").body["disabled"] == false)
            // Delete asks first; with the answer it deletes.
            let question = try await send(.post, "/admin/apps/local/users/\(id)/delete", form: "csrf=\(csrf)", cookie: cookie)
            #expect(question.status == 200 && question.body.contains("Delete user \(id)?"))
            #expect(try await AdminHarness.admin(c, .get, "/users/\(id)").status == 200, "not deleted yet")
            let deleted = try await send(.post, "/admin/apps/local/users/\(id)/delete", form: "csrf=\(csrf)&confirm=yes", cookie: cookie)
            #expect(deleted.status == 303 && deleted.headers[.location] == "/admin/apps/local/users")
            #expect(try await AdminHarness.admin(c, .get, "/users/\(id)").status == 404)
            // A user's page and the audit log, escaped.
            let audit = try await send(.get, "/admin/apps/local/audit?event=user_deleted", cookie: cookie)
            #expect(audit.status == 200 && audit.body.contains("admin:ops"))
            // The wrong key and the sign-in are in the audit log (the key tried is not).
            let signIns = try await send(.get, "/admin/apps/local/audit", cookie: cookie)
            #expect(signIns.body.contains("admin_refused") && signIns.body.contains("admin_signed_in"), "\(signIns.body)")
            #expect(!signIns.body.contains("not-the-key"))
            // Ending the sessions of a user that is not there changes nothing and records nothing.
            #expect(try await send(.post, "/admin/apps/local/users/\(id)/revoke", form: "csrf=\(csrf)", cookie: cookie).status == 404)
            let revoked = try await AdminHarness.admin(c, .get, "/users/\(id)")
            #expect(revoked.status == 404)
            let log = try await send(.get, "/admin/apps/local/audit?event=session_revoked", cookie: cookie)
            #expect(!log.body.contains(id), "a revoke of nobody was recorded")
            // Signed out: the cookie opens nothing.
            #expect(try await send(.post, "/admin/logout", form: "csrf=\(csrf)", cookie: cookie).status == 303)
            #expect(try await send(.get, "/admin/apps/local/users", cookie: cookie).headers[.location] == "/admin/login")
        }
    }

    @Test func aKeyIsAskedForOnlyWhereNobodyOnTheWayCanReadIt() async throws {
        let directory = Scratch.path("page")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = try AdminHarness.configuration(directory: directory)
        // The tests' loopback connection plays a proxy that terminates TLS, or does not.
        config.trustedProxies = try TrustedProxies(["127.0.0.1"])
        try await TestServer.run(config, mode: .live) { c in
            func send(_ method: HTTPRequest.Method, _ path: String, proto: String?, form: String? = nil, cookie: String? = nil) async throws
                -> (status: Int, headers: HTTPFields, body: String)
            {
                var headers: HTTPFields = [.init("X-Forwarded-For")!: "203.0.113.7"]
                if let proto { headers[.init("X-Forwarded-Proto")!] = proto }
                if let cookie { headers[.cookie] = cookie }
                if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
                return try await c.client.execute(uri: path, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) }) {
                    (Int($0.status.code), $0.headers, String(buffer: $0.body))
                }
            }
            // The proxy forwarded plain http (or wrote nothing, or the client wrote https first):
            // the page explains and asks for no key, and a posted one is refused unread.
            for proto in [nil, "http", "https, http"] {
                let page = try await send(.get, "/admin/login", proto: proto)
                #expect(page.status == 403 && page.body.contains(#"id="insecure""#) && !page.body.contains(#"name="key""#), "\(proto ?? "none")")
                #expect(page.headers[values: .setCookie].isEmpty)
            }
            let refused = try await send(.post, "/admin/login", proto: "http", form: "key=\(AdminHarness.key)")
            #expect(refused.status == 403 && refused.headers[values: .setCookie].isEmpty)
            // Over https: the form, and cookies that never travel over plain http.
            let login = try await send(.get, "/admin/login", proto: "https")
            #expect(login.status == 200 && login.body.contains(#"name="key""#))
            let loginCookie = try #require(login.headers[values: .setCookie].first { $0.hasPrefix("authsh_admin_login=") })
            #expect(loginCookie.hasSuffix("; Secure"))
            let range = try #require(login.body.range(of: #"name="csrf" value=""#))
            let token = String(login.body[range.upperBound...].prefix { $0 != "\"" })
            let signedIn = try await send(
                .post, "/admin/login", proto: "https", form: "csrf=\(token)&key=\(AdminHarness.key)",
                cookie: String(loginCookie.prefix { $0 != ";" }))
            #expect(signedIn.status == 303)
            let session = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("authsh_admin=") })
            #expect(session.hasSuffix("; Secure"))
        }
    }

    @Test func aDirectRequestIsTrustedOnlyFromThisMachineOrAtThePublicHTTPSHost() async throws {
        let directory = Scratch.path("page")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = try AdminHarness.configuration(directory: directory)
        config.publicURL = "https://auth.example.com"
        try await TestServer.run(config, mode: .live) { c in
            let port = try #require(c.client.port)
            func login(host: String, _ extra: String = "") async throws -> (status: String, form: Bool, secure: Bool) {
                let answer = try await RawHTTP.exchange(port: port, "GET /admin/login HTTP/1.1\r\nHost: \(host)\r\n\(extra)Connection: close\r\n\r\n")
                let cookie = answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: authsh_admin_login=") }
                return (String(answer.prefix(12)), answer.contains(#"name="key""#), cookie?.hasSuffix("; Secure") == true)
            }
            // The public https host (a TLS terminator that adds no header): the form, Secure cookies,
            // and the form posts over https whatever brought the page.
            #expect(try await login(host: "auth.example.com") == ("HTTP/1.1 200", true, true))
            let public_ = try await RawHTTP.exchange(port: port, "GET /admin/login HTTP/1.1\r\nHost: auth.example.com\r\nConnection: close\r\n\r\n")
            #expect(public_.contains(#"action="https://auth.example.com/admin/login""#))
            let local = try await RawHTTP.exchange(port: port, "GET /admin/login HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            #expect(local.contains(#"action="http://127.0.0.1:\#(port)/admin/login""#))
            #expect(try await login(host: "auth.example.com:443") == ("HTTP/1.1 200", true, true))
            // The same server by another address, or port: plain http, nobody knows who is on the way.
            #expect(try await login(host: "192.0.2.2:\(port)") == ("HTTP/1.1 403", false, false))
            #expect(try await login(host: "auth.example.com:80") == ("HTTP/1.1 403", false, false))
            // This machine, directly: the form, over http (no Secure).
            #expect(try await login(host: "127.0.0.1:\(port)") == ("HTTP/1.1 200", true, false))
            #expect(try await login(host: "localhost") == ("HTTP/1.1 200", true, false))
            // Through a proxy on this machine that nobody listed in trustedProxies: refused,
            // whatever it says, even at the public host.
            for header in [
                "X-Forwarded-For: 203.0.113.9", "X-Forwarded-Proto: https", "Forwarded: for=203.0.113.9", "X-Real-IP: 203.0.113.9",
                "Via: 1.1 nginx",
            ] {
                #expect(try await login(host: "127.0.0.1:\(port)", header + "\r\n") == ("HTTP/1.1 403", false, false), "\(header)")
                #expect(try await login(host: "auth.example.com", header + "\r\n") == ("HTTP/1.1 403", false, false), "\(header)")
            }
            // A post with a good token and cookie is still refused unread where the key could be
            // read on the way, or from a page that is not this one (a proxy that hides itself).
            let range = try #require(local.range(of: #"name="csrf" value=""#))
            let token = String(local[range.upperBound...].prefix { $0 != "\"" })
            func post(host: String, _ extra: String = "") async throws -> String {
                let body = "csrf=\(token)&key=\(AdminHarness.key)"
                return try await RawHTTP.exchange(
                    port: port,
                    "POST /admin/login HTTP/1.1\r\nHost: \(host)\r\n\(extra)"
                        + "Cookie: authsh_admin_login=\(token)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            for (host, extra) in [
                ("192.0.2.2:\(port)", ""), ("127.0.0.1:\(port)", "Origin: http://auth.example.com\r\n"),
                ("127.0.0.1:\(port)", "X-Forwarded-For: 203.0.113.9\r\n"), ("auth.example.com", "Origin: http://auth.example.com\r\n"),
            ] {
                let refused = try await post(host: host, extra)
                #expect(
                    refused.hasPrefix("HTTP/1.1 403") && refused.contains(#"id="insecure""#) && !refused.contains("authsh_admin="), "\(host) \(extra)"
                )
            }
            let accepted = try await post(host: "127.0.0.1:\(port)", "Origin: http://127.0.0.1:\(port)\r\n")
            #expect(accepted.hasPrefix("HTTP/1.1 303") && accepted.contains("authsh_admin="), "\(accepted.prefix(300))")
            // The session cookie stands for the key: read where the key would be, and nowhere else.
            let cookie = try #require(
                accepted.split(separator: "\r\n").first { $0.hasPrefix("set-cookie: authsh_admin=") || $0.hasPrefix("Set-Cookie: authsh_admin=") })
            let session = String(cookie.dropFirst("set-cookie: ".count).prefix { $0 != ";" })
            func users(host: String) async throws -> String {
                try await RawHTTP.exchange(
                    port: port, "GET /admin/apps/local/users HTTP/1.1\r\nHost: \(host)\r\nCookie: \(session)\r\nConnection: close\r\n\r\n")
            }
            #expect(try await users(host: "127.0.0.1:\(port)").hasPrefix("HTTP/1.1 200"))
            for host in ["192.0.2.2:\(port)", "auth.example.com:80"] {
                let elsewhere = try await users(host: host)
                #expect(
                    elsewhere.hasPrefix("HTTP/1.1 30") && elsewhere.lowercased().contains("location: /admin/login"),
                    "\(host): \(elsewhere.prefix(200))")
            }
        }
    }

    @Test func noPageWithoutAdminKeys() async throws {
        try await TestServer.run(TestServer.configuration()) { c in
            let status = try await c.client.execute(uri: "/admin/login", method: .get, headers: [:], body: nil) { Int($0.status.code) }
            #expect(status == 404)
        }
    }
}
