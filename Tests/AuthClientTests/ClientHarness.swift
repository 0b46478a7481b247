// SPDX-License-Identifier: Apache-2.0
import AuthClient
import AuthProtocol
import AuthServer
import TestSupport
import Hummingbird
import Synchronization
import Testing

/// A real AuthServer on a loopback port (dev mode, in memory, cheap Argon2id) for the client.
enum LiveServer {
    static func run(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (Harness) async throws -> Void
    ) async throws {
        var config = ServerConfiguration.testing()
        configure(&config)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try await buildApplication(config) { _, port in continuation.yield(port) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            try await body(Harness(origin: "http://127.0.0.1:\(port)"))
            group.cancelAll()
        }
    }
}

/// What a test needs around one server: apps, the dev API, a request counter.
struct Harness: Sendable {
    let origin: String

    /// A client app on this server; `counter` sees every request it makes.
    func app(_ id: String = "local", counter: RequestCounter? = nil, storage: String? = nil) throws -> App {
        try App(id: id, configuration: .init(baseURL: origin, requestTimeout: .seconds(60), storageDirectory: storage), transport: counter)
    }

    /// The dev API, straight over HTTP.
    func dev(_ method: String, _ path: String, _ body: EJSON? = nil) async throws -> EJSON {
        let response = try await AsyncHTTPTransport().send(
            TransportRequest(
                method: method, url: origin + Routes.dev + path, headers: [("Content-Type", "application/json")],
                body: body?.encoded(), timeout: .seconds(60)))
        return try EJSON(parsing: response.body)
    }

    /// Registers `email` and confirms it through the outbox.
    func registerConfirmed(_ app: App, _ email: String, _ password: String = "password1") async throws {
        try await app.emailPasswordAuth.registerUser(email: email, password: password)
        let mail = try #require(try await dev("GET", "/apps/\(app.id)/outbox?email=\(email)&kind=confirm").arrayValue?.last)
        try await app.emailPasswordAuth.confirmUser(
            token: try #require(mail["token"]?.stringValue),
            tokenId: try #require(mail["tokenId"]?.stringValue))
    }

    func advanceClock(_ seconds: Int64) async throws {
        _ = try await dev("POST", "/clock", ["advanceSeconds": .int64(seconds)])
    }
}

/// The real transport, counting requests by method and path (the server is real; only the
/// counting is added).
final class RequestCounter: AuthTransport {
    let inner = AsyncHTTPTransport()
    let counts = Mutex<[String: Int]>([:])

    func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
        // "http://host:port/api/..." -> "/api/..."
        let afterScheme = request.url.range(of: "://").map { request.url[$0.upperBound...] } ?? request.url[...]
        let path = String(afterScheme.drop { $0 != "/" })
        counts.withLock { $0["\(request.method) \(path)", default: 0] += 1 }
        return try await inner.send(request)
    }

    func count(_ method: String, _ path: String) -> Int { counts.withLock { $0["\(method) \(path)"] ?? 0 } }
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }
}
