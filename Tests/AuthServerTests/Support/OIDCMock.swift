// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import AuthProtocol
import Foundation
import NIOCore
import TestSupport
import Testing

/// A real third-party OpenID Connect provider for the tests: `oidc-provider-mock` from PyPI
/// (installed by scripts/setup into `.build/venv`), started on a loopback port and stopped
/// after the test. Any client id and secret are accepted; the authorize page takes `sub` and
/// issues a code to the redirect URI.
final class OIDCMock: Sendable {
    let issuer: String
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    static var executable: String { Binary.repository + "/.build/venv/bin/oidc-provider-mock" }

    init() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw Failure("oidc-provider-mock is not installed at .build/venv: run scripts/setup")
        }
        let directory = try TemporaryDirectory()
        let process = try ChildProcess([Self.executable, "--port", "0", "--host", "127.0.0.1"], output: directory.path + "/log")
        do {
            // Ready when uvicorn names its port: `Uvicorn running on http://127.0.0.1:PORT`.
            issuer = try await process.waitForOutput(timeout: .seconds(60)) { log in
                log.range(of: #"Uvicorn running on (http://127\.0\.0\.1:\d+)"#, options: .regularExpression)
                    .map { String(log[$0].split(separator: " ").last!) }
            }
        } catch {
            process.stop()
            throw Failure("oidc-provider-mock did not start: \(error)")
        }
        self.process = process
        self.directory = directory
    }

    deinit {
        // SIGKILL: on SIGTERM uvicorn waits for open keep-alive connections (the test client's
        // pool keeps some); the mock has nothing to save.
        process.stop()
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// Sets the claims of subject `sub` (they go into its ID tokens and userinfo).
    func setClaims(_ sub: String, _ claims: EJSON) async throws {
        let r = try await Web.send("PUT", issuer + "/users/\(sub)", json: claims)
        #expect(r.status == 204 || r.status == 200, "PUT /users: \(r.status)")
    }

    /// A code for `sub` from an authorize URL (the form's post, as a person would submit it).
    func approve(_ authorizeURL: String, sub: String) async throws -> String {
        let r = try await Web.send("POST", authorizeURL, form: [("sub", sub)])
        return try #require(r.location, "the mock answered \(r.status) without a redirect")
    }

    /// Tokens for `sub` obtained directly by a client (`client_id`, any secret).
    func tokens(sub: String, clientId: String, nonce: String? = nil, redirect: String = "http://127.0.0.1:9/cb") async throws -> EJSON {
        let code = try await self.code(sub: sub, clientId: clientId, nonce: nonce, redirect: redirect)
        let r = try await Web.send(
            "POST", issuer + "/oauth2/token",
            form: [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                ("client_id", clientId), ("client_secret", "anything"),
            ])
        #expect(r.status == 200, "token: \(r.status) \(r.text)")
        return try EJSON(parsing: Array(r.text.utf8))
    }

    /// A code for `sub`, issued to `clientId` at `redirect`.
    func code(sub: String, clientId: String, nonce: String? = nil, redirect: String = "http://127.0.0.1:9/cb") async throws -> String {
        var query = [
            ("client_id", clientId), ("redirect_uri", redirect), ("response_type", "code"),
            ("scope", "openid email profile"), ("state", "st"),
        ]
        if let nonce { query.append(("nonce", nonce)) }
        let location = try await approve(issuer + "/oauth2/authorize?" + FormEncoding.encode(query), sub: sub)
        let fields = try #require(FormEncoding.decode(location.split(separator: "?", maxSplits: 1)[1]))
        return try #require(FormEncoding.value("code", in: fields), "\(location)")
    }
}

/// HTTP requests whose redirects are answered, not followed.
enum Web {
    struct Answer {
        var status: Int
        var location: String?
        var text: String
    }

    static let client: HTTPClient = {
        var c = HTTPClient.Configuration()
        c.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: c)
    }()

    static func send(
        _ method: String, _ url: String, json: EJSON? = nil, form: [(String, String)]? = nil,
        bearer: String? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json.encoded(.relaxed)))
        }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let response = try await client.execute(request, timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), location: response.headers.first(name: "Location"), text: String(buffer: body))
    }
}

enum Binary {
    /// The repository root (this file is Tests/AuthServerTests/Support/OIDCMock.swift).
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()
}
