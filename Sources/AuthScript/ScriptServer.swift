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
    private let started = Mutex<Task<String, any Error>?>(nil)

    /// A server at `url`.
    public init(url: String) {
        baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        starter = nil
        adminKeySource = nil
    }

    /// The embedded server: `start` runs it and returns its origin (`http://127.0.0.1:PORT`).
    /// It is called once, on the first request. `adminKey` gives the key it was given, if any
    /// (asked for only when a script needs it).
    public init(embedded start: @escaping @Sendable () async throws -> String, adminKey: (@Sendable () -> String)? = nil) {
        baseURL = ScriptServer.embeddedURL
        starter = start
        adminKeySource = adminKey
    }

    public var isEmbedded: Bool { starter != nil }

    /// Nil when `url` can name a server (http or https), else what is wrong with it.
    public static func problem(with url: String) -> String? {
        url.hasPrefix("http://") || url.hasPrefix("https://") ? nil : "an http:// or https:// URL is needed, got '\(url)'"
    }

    /// Where requests for `baseURL` go: the embedded server's origin (starting it), or `baseURL`.
    public func origin() async throws(AuthClientError) -> String {
        guard let starter else { return baseURL }
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await starter() }
            task = new
            return new
        }
        do {
            return try await task.value
        } catch let error as AuthClientError {
            throw error
        } catch {
            throw AuthClientError(code: ScriptError.embeddedServerFailed, message: "the embedded server did not start: \(error)")
        }
    }

    /// `url` with the embedded placeholder replaced by the running server's origin.
    func resolve(_ url: String) async throws(AuthClientError) -> String {
        guard isEmbedded, url.hasPrefix(baseURL) else { return url }
        return try await origin() + url.dropFirst(baseURL.count)
    }
}

/// The client's transport for scripts: HTTP through AsyncHTTPClient, with the embedded
/// server's placeholder URL resolved (and the server started) on the first request.
struct ScriptTransport: AuthTransport {
    let server: ScriptServer

    func send(_ request: TransportRequest) async throws(AuthClientError) -> TransportResponse {
        var request = request
        request.url = try await server.resolve(request.url)
        return try await AsyncHTTPTransport().send(request)
    }
}
