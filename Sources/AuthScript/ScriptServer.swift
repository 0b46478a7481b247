// SPDX-License-Identifier: Apache-2.0
import AuthClient
import Synchronization

/// The server a script talks to: one named by URL, or the embedded one, started on the first
/// request.
public final class ScriptServer: Sendable {
    /// The URL the client's user store files the embedded server's users under. The embedded
    /// server listens on a new port each run; this name stays, so its users persist.
    public static let embeddedURL = "http://authsh.embedded"

    /// The configured URL (`embeddedURL` for the embedded server).
    public let baseURL: String
    /// The embedded server's admin key (made for this process; `auth.admin()` uses it), or nil.
    public var adminKey: String? { adminKeySource?() }
    private let adminKeySource: (@Sendable () -> String)?
    private let starter: (@Sendable () async throws -> String)?
    /// Whether the started server still runs (nil: assume it does).
    private let isRunning: (@Sendable () -> Bool)?
    private let state = Mutex<EmbeddedState>(.stopped)
    /// Every origin the embedded server has had: a client that learned one (the location
    /// route names it) is sent to the current one.
    private let origins = Mutex<Set<String>>([])

    /// Where the embedded server is in its life.
    private enum EmbeddedState {
        case stopped
        case starting(Task<String, any Error>)
        case running(origin: String)
    }

    /// A server at `url`.
    public init(url: String) {
        baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        starter = nil
        adminKeySource = nil
        isRunning = nil
    }

    /// The embedded server: `start` runs it and returns its origin (`http://127.0.0.1:PORT`).
    /// It is called on the first request, and again on a request after `isRunning` says the
    /// server has stopped (or after a start failed): one that died comes back, on a new port,
    /// with its data. `adminKey` gives the key it was given, if any (asked for only when a
    /// script needs it).
    public init(
        embedded start: @escaping @Sendable () async throws -> String, adminKey: (@Sendable () -> String)? = nil,
        isRunning: (@Sendable () -> Bool)? = nil
    ) {
        baseURL = ScriptServer.embeddedURL
        starter = start
        adminKeySource = adminKey
        self.isRunning = isRunning
    }

    public var isEmbedded: Bool { starter != nil }

    /// Nil when `url` can name a server (http or https), else what is wrong with it.
    public static func problem(with url: String) -> String? {
        url.hasPrefix("http://") || url.hasPrefix("https://") ? nil : "an http:// or https:// URL is needed, got '\(url)'"
    }

    /// Where requests for `baseURL` go: the embedded server's origin (starting it), or `baseURL`.
    public func origin() async throws(AuthClientError) -> String {
        guard let starter else { return baseURL }
        enum Next { case ready(String), wait(Task<String, any Error>) }
        let next: Next = state.withLock { state in
            switch state {
            case .running(let origin) where isRunning?() ?? true:
                return .ready(origin)
            case .starting(let task):
                return .wait(task)
            case .running, .stopped:
                let task = Task { try await starter() }
                state = .starting(task)
                return .wait(task)
            }
        }
        let task: Task<String, any Error>
        switch next {
        case .ready(let origin): return origin
        case .wait(let starting): task = starting
        }
        do {
            let origin = try await task.value
            state.withLock { if case .starting(let current) = $0, current == task { $0 = .running(origin: origin) } }
            origins.withLock { _ = $0.insert(origin) }
            return origin
        } catch {
            // The next request tries again.
            state.withLock { if case .starting(let current) = $0, current == task { $0 = .stopped } }
            if let error = error as? AuthClientError { throw error }
            throw AuthClientError(code: ScriptError.embeddedServerFailed, message: "the embedded server did not start: \(error)")
        }
    }

    /// `url` with the embedded placeholder, or an origin the embedded server had, replaced by
    /// the running server's origin (started again if it has stopped).
    func resolve(_ url: String) async throws(AuthClientError) -> String {
        guard isEmbedded else { return url }
        if url.hasPrefix(baseURL) { return try await origin() + url.dropFirst(baseURL.count) }
        let known = origins.withLock { origins in
            origins.first { url.hasPrefix($0) && (url.count == $0.count || url.dropFirst($0.count).first == "/") }
        }
        guard let known else { return url }
        return try await origin() + url.dropFirst(known.count)
    }
}

/// The client's transport for scripts: HTTP through AsyncHTTPClient, with the embedded
/// server's placeholder URL, and any origin it had before, resolved to the running server
/// (started on the first request, and again after it died); a request refused by an embedded
/// server that died is sent once more to the one started in its place.
struct ScriptTransport: AuthTransport {
    let server: ScriptServer

    func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
        var resolved = request
        resolved.url = try await server.resolve(request.url)
        do {
            return try await AsyncHTTPTransport().send(resolved)
        } catch  where error.neverSent && server.isEmbedded {
            // The embedded server died before the request reached it: once more, on the one
            // started in its place (nothing was done, so nothing is done twice).
            let again = try await server.resolve(request.url)
            guard again != resolved.url else { throw error }
            resolved.url = again
            return try await AsyncHTTPTransport().send(resolved)
        }
    }
}
