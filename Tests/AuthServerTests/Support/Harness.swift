// SPDX-License-Identifier: Apache-2.0
import AuthProtocol
import AuthServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// One response of the server, already checked against the rules every response must keep.
struct Reply {
    let status: Int
    let body: EJSON
    /// The `Retry-After` header, when there is one.
    var retryAfter: String? = nil

    var code: String? { body["error_code"]?.stringValue }
    var message: String? { body["error"]?.stringValue }
    subscript(key: String) -> String? { body[key]?.stringValue }
}

/// Drives a real server (in-process router, or a live loopback port) through its HTTP API.
struct Client {
    let client: any TestClientProtocol
    var app = "local"

    /// Sends a request; every response must be JSON with `Content-Type: application/json`
    /// exactly, and a 2xx body must not carry `error` or `error_code`.
    @discardableResult
    func call(
        _ method: HTTPRequest.Method, _ path: String, json: EJSON? = nil, raw: [UInt8]? = nil,
        token: String? = nil, headers extra: [(String, String?)] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        var headers: HTTPFields = [.contentType: "application/json;charset=utf-8", .accept: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        // `extra` replaces (or, with nil, removes) a header.
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        let bytes = raw ?? json?.encoded()
        let body = bytes.map { ByteBuffer(bytes: $0) }
        return try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
            #expect(response.headers[.contentType] == "application/json", "\(method) \(path)", sourceLocation: sourceLocation)
            let parsed = try EJSON(parsing: Array(buffer: response.body))
            let status = Int(response.status.code)
            if (200..<300).contains(status) {
                // No error on a success; a list of per-item refusals (Firebase's import) is no error.
                #expect(
                    (parsed["error"] == nil || parsed["error"]?.arrayValue != nil) && parsed["error_code"] == nil, "\(path): \(parsed)",
                    sourceLocation: sourceLocation)
            }
            return Reply(status: status, body: parsed, retryAfter: response.headers[.retryAfter])
        }
    }

    /// The same server, addressed as app `id`.
    func inApp(_ id: String) -> Client {
        var other = self
        other.app = id
        return other
    }

    // The routes, by name.
    var appRoute: String { Routes.app(app) }
    func login(_ provider: String, _ body: EJSON, link token: String? = nil) async throws -> Reply {
        try await call(.post, Routes.login(app, provider: provider) + (token == nil ? "" : "?link=true"), json: body, token: token)
    }
    func anonymous() async throws -> Reply { try await login("anon-user", ["provider": "anon-user"]) }
    func emailLogin(_ email: String, _ password: String, link token: String? = nil) async throws -> Reply {
        try await login("local-userpass", ["provider": "local-userpass", "username": .string(email), "password": .string(password)], link: token)
    }
    func userpass(_ action: String, _ body: EJSON) async throws -> Reply {
        try await call(.post, Routes.userpass(app, action), json: body)
    }
    func profile(_ token: String) async throws -> Reply { try await call(.get, Routes.profile, token: token) }
    func refresh(_ token: String) async throws -> Reply { try await call(.post, Routes.session, token: token) }
    func outbox(_ email: String, kind: String) async throws -> [EJSON] {
        let reply = try await call(.get, "\(Routes.dev)/apps/\(app)/outbox?email=\(email)&kind=\(kind)")
        #expect(reply.status == 200, "the outbox route answered \(reply.status)")
        return try #require(reply.body.arrayValue)
    }

    /// Registers and confirms through the outbox link, as a user would.
    func registerConfirmed(_ email: String, _ password: String = "password1") async throws {
        let r = try await userpass("register", ["email": .string(email), "password": .string(password)])
        #expect(r.status == 201)
        let mail = try #require(try await outbox(email, kind: "confirm").last)
        let c = try await userpass("confirm", ["token": mail["token"]!, "tokenId": mail["tokenId"]!])
        #expect(c.status == 200)
    }
}

/// Server configurations for tests: in memory, dev mode, cheap Argon2 parameters.
enum TestServer {
    static func configuration(
        apps: [AppConfiguration] = [AppConfiguration(id: "local")],
        database: ServerConfiguration.Database = .memory, dev: Bool = true,
        plugins: String? = nil
    ) -> ServerConfiguration {
        .testing(apps: apps, database: database, dev: dev, plugins: plugins)
    }

    /// Runs `body` against a server built from `configuration`, routed in-process.
    static func run(
        _ configuration: ServerConfiguration = configuration(), mode: TestingSetup = .router,
        _ body: @escaping @Sendable (Client) async throws -> Void
    ) async throws {
        let app = try await buildApplication(configuration)
        try await app.test(mode) { client in try await body(Client(client: client)) }
    }
}
