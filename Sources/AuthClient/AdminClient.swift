// SPDX-License-Identifier: Apache-2.0
import AuthProtocol

/// The admin API of an authsh server (`/api/admin/v1`), with an admin key: what `authsh
/// admin` and Lua's `auth.admin{}` use. Users come back as the server shows them (EJSON
/// documents: `id`, `disabled`, `createdAt`, `lastLoginAt`, `data`, `customData`,
/// `identities`; one user's also `sessions`, `apiKeys`, `audit`).
public struct AdminClient: Sendable {
    /// The server's origin, `http://127.0.0.1:9090`.
    public let server: String
    /// The app whose users this client administers.
    public let app: String
    let key: String
    private let transport: any AuthTransport
    private let resolve: @Sendable () async throws -> String

    /// - Parameter resolve: where requests really go, when `server` is a name (scripts' embedded
    ///   server); the streamed transfers use it, the others go through `transport`.
    public init(
        server: String, key: String, app: String = "local", transport: any AuthTransport = AsyncHTTPTransport(),
        resolve: (@Sendable () async throws -> String)? = nil
    ) {
        var origin = server
        while origin.hasSuffix("/") { origin.removeLast() }
        self.server = origin
        self.key = key
        self.app = app
        self.transport = transport
        let fixed = origin
        self.resolve = resolve ?? { fixed }
    }

    func resolvedServer() async throws -> String { try await resolve() }

    /// One page of users.
    public struct Page: Sendable {
        public var users: [EJSON]
        /// Pass as `cursor` for the next page; nil on the last.
        public var next: String?
    }

    /// One page of the users the filters select (`email` prefix, `provider`, `state`
    /// `enabled`/`disabled`, `createdAfter`, `createdBefore`, `lastLoginAfter`,
    /// `lastLoginBefore` in unix seconds, `limit`, `cursor`).
    public func listUsers(_ filters: [String: String] = [:]) async throws(AuthClientError) -> Page {
        let query = filters.sorted { $0.key < $1.key }.map { "\(Self.escape($0.key))=\(Self.escape($0.value))" }.joined(separator: "&")
        let body = try await send("GET", "/users" + (query.isEmpty ? "" : "?" + query))
        return Page(users: body["users"]?.arrayValue ?? [], next: body["next"]?.stringValue)
    }

    /// Every user the filters select, page by page.
    public func allUsers(_ filters: [String: String] = [:]) async throws(AuthClientError) -> [EJSON] {
        var users: [EJSON] = []
        var filters = filters
        while true {
            let page = try await listUsers(filters)
            users += page.users
            guard let next = page.next else { return users }
            filters["cursor"] = next
        }
    }

    public func user(_ id: String) async throws(AuthClientError) -> EJSON {
        try await send("GET", "/users/\(Self.escape(id))")
    }

    public func disable(_ id: String) async throws(AuthClientError) {
        _ = try await send("POST", "/users/\(Self.escape(id))/disable")
    }

    public func enable(_ id: String) async throws(AuthClientError) {
        _ = try await send("POST", "/users/\(Self.escape(id))/enable")
    }

    public func delete(_ id: String) async throws(AuthClientError) {
        _ = try await send("DELETE", "/users/\(Self.escape(id))")
    }

    /// Ends every session of the user; returns how many.
    @discardableResult
    public func revokeSessions(_ id: String) async throws(AuthClientError) -> Int {
        Int(try await send("DELETE", "/users/\(Self.escape(id))/sessions")["revoked"]?.integerValue ?? 0)
    }

    /// Sets the user's custom data (a document), or removes it (nil); returns the user.
    @discardableResult
    public func setCustomData(_ id: String, _ data: EJSONDocument?) async throws(AuthClientError) -> EJSON {
        try await send("PUT", "/users/\(Self.escape(id))/custom_data", body: data.map(EJSON.document) ?? .null)
    }

    /// The user's second factors: `{factors: [{type, confirmed, createdAt}], recoveryCodes}`.
    public func secondFactors(_ id: String) async throws(AuthClientError) -> EJSON {
        try await send("GET", "/users/\(Self.escape(id))/factors")
    }

    /// Removes the user's TOTP factor and recovery codes (they lost their authenticator).
    public func removeTOTP(_ id: String) async throws(AuthClientError) {
        _ = try await send("DELETE", "/users/\(Self.escape(id))/factors/totp")
    }

    /// Removes one of the user's phone factors (its `id` in ``secondFactors(_:)``: they lost that phone).
    public func removePhoneFactor(_ id: String, enrollmentId: String) async throws(AuthClientError) {
        _ = try await send("DELETE", "/users/\(Self.escape(id))/factors/phone/\(Self.escape(enrollmentId))")
    }

    /// Sends the user's email/password account its reset mail.
    public func sendReset(_ id: String) async throws(AuthClientError) {
        _ = try await send("POST", "/users/\(Self.escape(id))/reset")
    }

    /// Confirms a pending email/password account.
    public func confirm(email: String) async throws(AuthClientError) {
        _ = try await send("POST", "/confirm", body: ["email": .string(email)])
    }

    /// One batch of `authsh admin import --from firebase` (the admin API's `import/firebase`):
    /// at most 1,000 users of a `firebase auth:export` file with the project's hash fields, and
    /// `check` to write nothing. Answers `{imported, skipped, checked, rejected: [{index, reason}]}`.
    public func importFirebaseBatch(_ body: EJSONDocument) async throws(AuthClientError) -> EJSON {
        try await send("POST", "/import/firebase", body: .document(body))
    }

    private func send(_ method: String, _ path: String, body: EJSON? = nil) async throws(AuthClientError) -> EJSON {
        var headers = [("Accept", "application/json"), ("Authorization", "Bearer \(key)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let url = "\(server)/api/admin/v1/apps/\(Self.escape(app))\(path)"
        let response = try await transport.send(
            TransportRequest(
                method: method, url: url, headers: headers,
                body: body?.encoded(.relaxed)))
        let parsed: EJSON
        do {
            parsed = response.body.isEmpty ? [:] : try EJSON(parsing: response.body)
        } catch {
            throw AuthClientError(
                code: AuthClientError.malformedResponse,
                message: "\(server) answered \(response.status) with a body that is not JSON", status: response.status)
        }
        guard (200..<300).contains(response.status) else {
            if response.status == 404 && parsed["error_code"] == nil {
                throw AuthClientError(code: "NotFound", message: "\(server) has no admin API (no adminKeys configured?)", status: 404)
            }
            if let error = ServiceError(body: parsed, status: response.status) { throw AuthClientError(error) }
            throw AuthClientError(
                code: AuthClientError.malformedResponse, message: "\(server) answered \(response.status)",
                status: response.status)
        }
        return parsed
    }

    /// Percent-encodes all but unreserved characters (RFC 3986).
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
