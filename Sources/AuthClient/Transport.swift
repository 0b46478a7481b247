// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP exchange, as the client needs it. `AsyncHTTPTransport` is the real one; tests use
/// a seam of their own for network faults only (server down, timeout, garbage).
public protocol AuthTransport: Sendable {
    func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse
}

public struct TransportRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?
    public var timeout: Duration

    public init(
        method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

public struct TransportResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    /// The headers (a redirect's `Location` is read by the sign-in flows).
    public var headers: [(String, String)]
    public init(status: Int, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// AsyncHTTPClient, with a deadline per request and a cap on the response size.
public struct AsyncHTTPTransport: AuthTransport {
    let client: HTTPClient
    /// The largest response body read (16 MiB by default).
    let maxResponseBytes: Int

    public init(client: HTTPClient = AsyncHTTPTransport.sharedClient, maxResponseBytes: Int = 16 << 20) {
        self.client = client
        self.maxResponseBytes = maxResponseBytes
    }

    /// The process-wide client (never shut down, like `HTTPClient.shared`). Unlike the shared
    /// one it does not retry a refused connection until the deadline: a server that is down
    /// is reported at once, which is what someone exploring auth flows needs to see. It keeps
    /// up to 64 connections per server (AsyncHTTPClient's default is 8), so that a script's
    /// concurrent requests (`auth.spawn`) are not queued behind eight.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.timeout.connect = .seconds(10)
        // A redirect is answered to the caller, never followed: the sign-in flows read them.
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
        var r = HTTPClientRequest(url: request.url)
        r.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { r.headers.add(name: name, value: value) }
        if let body = request.body { r.body = .bytes(ByteBuffer(bytes: body)) }
        // The origin is for error messages only: worked out when one is made.
        var server: String { Self.origin(request.url) }
        do {
            let timeout = TimeAmount.nanoseconds(
                Int64(request.timeout.components.seconds) * 1_000_000_000
                    + request.timeout.components.attoseconds / 1_000_000_000)
            let response = try await client.execute(r, timeout: timeout)
            let body = try await response.body.collect(upTo: maxResponseBytes)
            return TransportResponse(
                status: Int(response.status.code), body: Array(buffer: body),
                headers: response.headers.map { ($0.name, $0.value) })
        } catch let error as HTTPClientError
            where error == .deadlineExceeded || error == .readTimeout
            || error == .connectTimeout
        {
            throw AuthClientError(code: AuthClientError.timedOut, message: "\(server) did not answer in time")
        } catch is NIOTooManyBytesError {
            throw AuthClientError(
                code: AuthClientError.malformedResponse,
                message: "\(server) sent a response larger than \(maxResponseBytes >> 20) MiB")
        } catch {
            var failure = AuthClientError(code: AuthClientError.connectionFailed, message: "cannot reach \(server): \(Self.reason(error))")
            failure.neverSent = Self.wasRefused(error)
            throw failure
        }
    }

    /// Why a connection failed, in words: the system's text for its errno (`Connection
    /// refused`), once, rather than NIO's description of its error types.
    static func reason(_ error: any Error) -> String {
        if wasRefused(error) { return "connection refused (nothing listens there)" }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? NIOConnectionError {
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "the name does not resolve (\(dns))" }
            let reasons = Set(error.connectionErrors.map { reason($0.error) })
            if !reasons.isEmpty { return reasons.sorted().joined(separator: "; ") }
        }
        return "\(error)"
    }

    /// Whether `error` is a refused connection (nothing listened there).
    static func wasRefused(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == ECONNREFUSED }
        if let error = error as? NIOConnectionError {
            return !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { wasRefused($0.error) }
        }
        return false
    }

    /// `http://host:port` of a URL, for messages (never the path or query).
    static func origin(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard
            let colon = bytes.indices.first(where: { i in
                i + 2 < bytes.count && bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/") && bytes[i + 2] == UInt8(ascii: "/")
            })
        else { return url }
        let hostStart = colon + 3
        let hostEnd = bytes[hostStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.count
        return String(decoding: bytes[..<hostEnd], as: UTF8.self)
    }
}
